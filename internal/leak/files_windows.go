package leak

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

var getProcessHandleCount = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetProcessHandleCount")

// openFiles counts this process's open handles: files, but also events, threads and the like,
// which a leak would grow just the same.
func openFiles() (int, error) {
	var n uint32
	if ok, _, err := getProcessHandleCount.Call(uintptr(windows.CurrentProcess()), uintptr(unsafe.Pointer(&n))); ok == 0 {
		return 0, fmt.Errorf("GetProcessHandleCount: %w", err)
	}
	return int(n), nil
}
