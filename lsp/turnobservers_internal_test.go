package lsp

import (
	"encoding/json"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/lsp/editor"
	"github.com/hermes-lsp/hermes-lsp/lsp/settings"
)

// TestAnswerSurfaces: a client that shows turns itself (showsTurns, hermes/turnEvent on) gets no
// answer message and no transcript opened, unless the user chose openTranscript; other clients keep
// the message and the transcript as openTranscript says (its default follows showDocument).
func TestAnswerSurfaces(t *testing.T) {
	parse := func(raw string) *settings.Settings {
		st, _, err := settings.Parse(json.RawMessage(raw), settings.Default())
		if err != nil {
			t.Fatal(err)
		}
		if !st.OpenTranscriptSet() {
			st.OpenTranscript = true // as initialize sets it for a client with showDocument
		}
		return &st
	}
	shows := editor.Caps{ShowsTurns: true, ShowDocument: true}
	plain := editor.Caps{ShowDocument: true}
	for _, c := range []struct {
		name        string
		caps        editor.Caps
		settings    string
		toast, open bool
	}{
		{"chat view, default", shows, `{"turnEvents":true}`, false, false},
		{"chat view, openTranscript chosen", shows, `{"turnEvents":true,"openTranscript":true}`, false, true},
		{"chat view, openTranscript off", shows, `{"turnEvents":true,"openTranscript":false}`, false, false},
		{"showsTurns without turn events", shows, `{}`, true, true},
		{"other client with turn events", plain, `{"turnEvents":true}`, true, true},
		{"other client, openTranscript off", plain, `{"openTranscript":false}`, true, false},
	} {
		toast, open := answerSurfaces(c.caps, parse(c.settings))
		if toast != c.toast || open != c.open {
			t.Errorf("%s: toast %v, transcript opened %v; want %v, %v", c.name, toast, open, c.toast, c.open)
		}
	}
}
