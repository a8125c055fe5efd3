package agentproc

import "syscall"

// setParentDeathSignal has the kernel SIGKILL the agent when the thread that started it ends, so it
// dies with us even when we are killed without a chance to close it.
func setParentDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}
