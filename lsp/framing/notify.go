package framing

import (
	"context"
	"fmt"
	"strconv"

	fastjson "github.com/segmentio/encoding/json"
)

// A Notifier writes notifications to the peer. The streams NewStream returns are Notifiers.
type Notifier interface {
	// Notify writes the notification method with params, as jsonrpc2.Conn's Notify would.
	Notify(ctx context.Context, method string, params any) error
}

// headerRoom is the space kept before a notification's body for its header: "Content-Length: "
// and up to 20 digits and "\r\n\r\n".
const headerRoom = 40

// Notify writes a notification in one pass: the body is encoded once, straight after room for the
// header, and written with it. jsonrpc2's Conn.Notify encodes the params, then the message around
// them (a second pass over the params), and the frame copies both: a third of what a progress
// report costs the server.
func (s *stream) Notify(ctx context.Context, method string, params any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	buf := make([]byte, headerRoom, headerRoom+256)
	buf = append(buf, `{"jsonrpc":"2.0","method":`...)
	buf, err := fastjson.Append(buf, method, fastjson.EscapeHTML)
	if err == nil {
		buf = append(buf, `,"params":`...)
		buf, err = fastjson.Append(buf, params, fastjson.EscapeHTML|fastjson.SortMapKeys)
	}
	if err != nil {
		return fmt.Errorf("marshaling notification %s: %w", method, err)
	}
	buf = append(buf, '}')
	header := "Content-Length: " + strconv.Itoa(len(buf)-headerRoom) + "\r\n\r\n"
	start := headerRoom - len(header)
	copy(buf[start:], header)
	return s.write(buf[start:])
}
