package codex

// This file is the lenient layer over the generated protocol: the schema's unions, typed by hand
// the way the host reads them, so that a variant or field this version does not know never fails a
// message.

import (
	"encoding/json"
	"fmt"
	fastjson "github.com/segmentio/encoding/json"
	"strings"
)

// Item is one thing that happened in a turn. Type says which fields apply; Raw always holds the item
// as codex sent it, so an item of a type this package does not know is still kept whole.
type Item struct {
	Type string `json:"type"`
	ID   string `json:"id"`

	// agentMessage, plan
	Text  string `json:"text"`
	Phase string `json:"phase"`

	// userMessage
	Content json.RawMessage `json:"content"`

	// reasoning
	Summary []string `json:"summary"`

	// commandExecution
	Command          string  `json:"command"`
	Cwd              string  `json:"cwd"`
	AggregatedOutput *string `json:"aggregatedOutput"`
	ExitCode         *int    `json:"exitCode"`
	DurationMs       *int64  `json:"durationMs"`

	// commandExecution, fileChange, mcpToolCall, dynamicToolCall
	Status string `json:"status"`

	// fileChange
	Changes []FileChange `json:"changes"`

	// mcpToolCall
	Server string          `json:"server"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`

	// mcpToolCall, dynamicToolCall
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`

	// dynamicToolCall
	Success      *bool           `json:"success"`
	ContentItems json.RawMessage `json:"contentItems"`

	// webSearch
	Query string `json:"query"`

	// enteredReviewMode (what is reviewed), exitedReviewMode (the rendered review)
	Review string `json:"review"`

	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the known fields and keeps the raw item. Fields whose shape differs from what
// this package expects (reasoning content, summaries of another form) do not fail the item.
func (it *Item) UnmarshalJSON(b []byte) error {
	type plain Item
	var p plain
	if err := fastjson.Unmarshal(b, &p); err != nil {
		// Fall back to the fields every item has, so one odd field never loses the item.
		var head struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		}
		if herr := json.Unmarshal(b, &head); herr != nil {
			return err
		}
		p = plain{Type: head.Type, ID: head.ID}
	}
	*it = Item(p)
	it.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// PatchChangeKind says what a FileChange does: Type is add, delete or update; MovePath is where an
// update moves the file.
type PatchChangeKind struct {
	Type     string `json:"type"`
	MovePath string `json:"move_path,omitempty"`
}

// AskForApproval is an approval policy: one of the Approval constants. codex may answer with the
// schema's granular object form, which this host never sets; it decodes as "granular".
type AskForApproval string

// UnmarshalJSON accepts the string form, and reads any other form as "granular".
func (p *AskForApproval) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*p = AskForApproval(s)
		return nil
	}
	if string(b) != "null" {
		*p = "granular"
	}
	return nil
}

// ThreadStatus is idle, active (with flags such as waitingOnApproval), systemError or notLoaded.
type ThreadStatus struct {
	Type        string   `json:"type"`
	ActiveFlags []string `json:"activeFlags"`
}

// UserInput is one piece of a user message. Only text is used by this client.
type UserInput struct {
	Type         string `json:"type"`
	Text         string `json:"text,omitempty"`
	TextElements []any  `json:"text_elements"`
	Path         string `json:"path,omitempty"`
}

// CodexErrorInfo classifies a failure. On the wire it is a string ("usageLimitExceeded") or an object
// with one key ({"responseTooManyFailedAttempts": {"httpStatusCode": 429}}); the raw JSON is kept.
type CodexErrorInfo struct {
	Raw json.RawMessage
}

// UnmarshalJSON keeps the raw value.
func (c *CodexErrorInfo) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		c.Raw = nil
		return nil
	}
	c.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// MarshalJSON writes the raw value back.
func (c CodexErrorInfo) MarshalJSON() ([]byte, error) {
	if len(c.Raw) == 0 {
		return []byte("null"), nil
	}
	return c.Raw, nil
}

// Kind is the error's name: the string itself, or the single key of the object form.
func (c CodexErrorInfo) Kind() string {
	if len(c.Raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(c.Raw, &s) == nil {
		return s
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(c.Raw, &m) == nil {
		for k := range m {
			return k
		}
	}
	return strings.TrimSpace(string(c.Raw))
}

// HTTPStatus is the httpStatusCode of the object form, or 0.
func (c CodexErrorInfo) HTTPStatus() int {
	var m map[string]struct {
		HTTPStatusCode int `json:"httpStatusCode"`
	}
	if json.Unmarshal(c.Raw, &m) != nil {
		return 0
	}
	for _, v := range m {
		return v.HTTPStatusCode
	}
	return 0
}

// String renders the info as its kind with the HTTP status when there is one.
func (c CodexErrorInfo) String() string {
	kind := c.Kind()
	if st := c.HTTPStatus(); st != 0 {
		return fmt.Sprintf("%s(%d)", kind, st)
	}
	return kind
}
