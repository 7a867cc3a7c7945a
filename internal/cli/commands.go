package cli

import "github.com/spf13/cobra"

// commands lists every verb. Each lives in its own file.
func (a *app) commands() []*cobra.Command {
	return []*cobra.Command{
		a.cpCmd(),
		a.mvCmd(),
		a.syncCmd(),
		a.rmCmd(),
		a.lsCmd(),
		a.duCmd(),
		a.catCmd(),
		a.presignCmd(),
		a.runCmd(),
		a.planCmd(),
		a.mbCmd(),
		a.rbCmd(),
		a.serveCmd(),
		a.seedCmd(),
		a.benchCmd(),
		a.demoCmd(),
		a.batchCmd(),
		a.verifyCmd(),
		a.mpuCmd(),
		a.versionCmd(),
	}
}
