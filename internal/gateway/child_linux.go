package gateway

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal makes the kernel kill the child when the thread that
// started it exits. Go keeps its threads alive unless a goroutine that
// locked one exits, so in practice this fires when the parent dies.
func setParentDeathSignal(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
