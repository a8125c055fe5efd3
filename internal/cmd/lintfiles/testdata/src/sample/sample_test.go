package sample

import (
	"os"
	"testing"
)

// Tests are not checked.
func TestNothing(t *testing.T) { _, _ = os.ReadFile("x") }
