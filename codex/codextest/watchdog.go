package codextest

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"
)

// WatchdogAfter is how long a test that made a Fake may run before Watchdog ends the test binary.
// A turn on the fake takes milliseconds; even the thousand-turn tests end in well under a minute
// on two loaded cores.
const WatchdogAfter = 3 * time.Minute

// Watchdog ends the test binary when t is still running after d: it prints every goroutine's
// stack, then the test's name, and exits with status 2. go test's own -timeout prints the
// goroutines after the name of the test that hung, so a log that keeps only its tail loses the
// name; this puts the name last. The timer stops when t ends.
func Watchdog(t testing.TB, d time.Duration) {
	timer := time.AfterFunc(d, func() {
		buf := make([]byte, 8<<20)
		buf = buf[:runtime.Stack(buf, true)]
		_, _ = os.Stderr.Write(buf)
		fmt.Fprintf(os.Stderr, "\ncodextest watchdog: %s still running after %v: a wait in the test or in the code under test never ended (goroutines above)\n", t.Name(), d)
		os.Exit(2)
	})
	t.Cleanup(func() { timer.Stop() })
}
