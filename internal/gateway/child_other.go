//go:build !linux

package gateway

import "os/exec"

// setParentDeathSignal does nothing where the kernel offers no parent-death
// signal; a child orphaned there runs until it is stopped.
func setParentDeathSignal(cmd *exec.Cmd) {}
