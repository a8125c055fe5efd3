package agenthost

import (
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/queue"
)

// eventQueue holds a turn's events until they are read: the host never blocks on a slow reader
// of a turn's events, and no event is dropped.
type eventQueue = queue.Unbounded[hermesproto.Event]

func newEventQueue() *eventQueue { return queue.New[hermesproto.Event]() }
