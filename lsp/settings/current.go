package settings

import (
	"sync"
	"sync/atomic"
)

// Current holds the settings in force: a value never changed once stored, replaced whole when the
// settings change, so that a reader takes it without a lock. Changes are applied one at a time:
// whoever applies one holds Lock until it is stored.
type Current struct {
	p        atomic.Pointer[Settings]
	applying sync.Mutex
}

// NewCurrent returns st in force.
func NewCurrent(st Settings) *Current {
	c := &Current{}
	c.p.Store(&st)
	return c
}

// Load returns the settings in force. The caller must not change them.
func (c *Current) Load() *Settings { return c.p.Load() }

// Store puts st in force.
func (c *Current) Store(st *Settings) { c.p.Store(st) }

// Lock waits for the change being applied, if any, and starts applying one.
func (c *Current) Lock() { c.applying.Lock() }

// Unlock ends applying a change.
func (c *Current) Unlock() { c.applying.Unlock() }
