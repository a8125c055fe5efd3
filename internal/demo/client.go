package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
	"go.lsp.dev/protocol"
)

// client is the demo's side of the LSP connection: lsptest's editor (the one the server's tests
// drive), which shows progress, turn events and approval prompts on the terminal as they come.
type client struct {
	ed     *lsptest.Editor
	term   *terminal
	ask    *asker
	folder string // the workspace folder: paths under it are shown relative

	mu        sync.Mutex
	approvals map[string]hermesproto.Approval // approvalWaiting events, by approval id
	arrived   chan struct{}                   // closed and replaced when an approval event arrives
	reasoning strings.Builder                 // reasoning deltas not shown yet
	diff      string                          // the turn's diff, as the last diff event had it
	patches   []string                        // the diffs of the patches asked about, in order
	prompts   int                             // approval prompts answered
	prompted  map[string]bool                 // items whose approval prompt showed them already
	result    *hermesproto.Result
	done      chan struct{} // closed at turnCompleted
}

func newClient(term *terminal, ask *asker, folder string) *client {
	return &client{
		term:      term,
		ask:       ask,
		folder:    folder,
		prompted:  make(map[string]bool),
		approvals: make(map[string]hermesproto.Approval),
		arrived:   make(chan struct{}),
		done:      make(chan struct{}),
	}
}

// profile is the demo as an editor: it shows progress and message prompts, has one workspace
// folder, and cannot open documents, answer configuration or apply edits.
func profile(version string) lsptest.Profile {
	return lsptest.Profile{
		Name:       "hermes-demo",
		ClientInfo: &protocol.ClientInfo{Name: "hermes-demo", Version: version},
		Capabilities: protocol.ClientCapabilities{
			Window: &protocol.WindowClientCapabilities{
				WorkDoneProgress: true,
				ShowMessage:      &protocol.ShowMessageRequestClientCapabilities{},
			},
			Workspace: &protocol.WorkspaceClientCapabilities{WorkspaceFolders: true},
		},
	}
}

// connect starts the LSP connection over rwc, the server's end.
func (c *client) connect(ctx context.Context, rwc io.ReadWriteCloser, version string) error {
	ed, err := lsptest.Connect(ctx, rwc, profile(version),
		lsptest.WithNotificationHook(c.notified),
		lsptest.WithShowMessageRequestHook(func(_ context.Context, p protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
			return c.prompt(&p), nil
		}))
	c.ed = ed
	return err
}

// notified shows the server's notifications. The editor calls it on its read goroutine, in order,
// so it never blocks: an approval prompt waits for the person on a goroutine of its own.
func (c *client) notified(method string, params json.RawMessage) {
	switch method {
	case protocol.MethodProgress:
		var p struct {
			Value struct {
				Kind    string `json:"kind"`
				Title   string `json:"title"`
				Message string `json:"message"`
			} `json:"value"`
		}
		if json.Unmarshal(params, &p) == nil {
			switch p.Value.Kind {
			case "begin":
				c.term.Status(p.Value.Title + ": " + p.Value.Message)
			case "report":
				c.term.Status(p.Value.Message)
			case "end":
				c.term.Status("end: " + p.Value.Message)
			}
		}
	case hermesproto.MethodTurnEvent:
		var p hermesproto.TurnEventParams
		if err := json.Unmarshal(params, &p); err == nil {
			c.event(p.Event)
		}
	case protocol.MethodWindowShowMessage:
		var p protocol.ShowMessageParams
		// Errors and warnings only, and not the turn's final message ("Hermes (folder): ..."): the
		// turn events show all of it.
		if json.Unmarshal(params, &p) == nil && (p.Type == protocol.MessageTypeError || p.Type == protocol.MessageTypeWarning) &&
			!strings.HasPrefix(p.Message, "Hermes ("+filepath.Base(c.folder)+"):") {
			c.term.Println(c.term.style(styleRed, "! ") + strings.TrimPrefix(indent(p.Message, "  "), "  "))
		}
	}
}

// event shows one hermes/turnEvent.
func (c *client) event(ev hermesproto.Event) {
	if ev.Kind != hermesproto.EventKindReasoningDelta {
		c.flushReasoning()
	}
	switch ev.Kind {
	case hermesproto.EventKindAnswerDelta:
		c.term.AnswerDelta(ev.Text)
	case hermesproto.EventKindReasoningDelta:
		c.mu.Lock()
		c.reasoning.WriteString(ev.Text)
		c.mu.Unlock()
	case hermesproto.EventKindToolStarted:
		if ev.Tool == nil {
			return
		}
		c.mu.Lock()
		shown := c.prompted[ev.Tool.ItemID]
		c.mu.Unlock()
		if !shown { // else its approval prompt showed it
			c.term.Println(c.term.style(styleBold, "▸ "+toolVerb(ev.Tool.Name)+": ") + c.relative(ev.Tool.Preview))
		}
	case hermesproto.EventKindToolCompleted:
		c.toolCompleted(ev.Tool)
	case hermesproto.EventKindDiff:
		c.mu.Lock()
		c.diff = ev.Diff
		c.mu.Unlock()
	case hermesproto.EventKindApprovalWaiting:
		if a := ev.Approval; a != nil {
			c.mu.Lock()
			c.approvals[a.ID] = *a
			close(c.arrived)
			c.arrived = make(chan struct{})
			c.mu.Unlock()
		}
	case hermesproto.EventKindApprovalResolved:
		if a := ev.Approval; a != nil && a.DecidedBy != "" && a.DecidedBy != "user" {
			c.term.Printf("  approval %s: %s (%s)", a.ID, a.Decision, a.DecidedBy)
		}
	case hermesproto.EventKindError, hermesproto.EventKindFallback:
		c.term.Println(c.term.style(styleRed, "! ") + string(ev.Kind) + ": " + ev.Text)
	case hermesproto.EventKindTurnCompleted:
		c.term.EndAnswer()
		c.mu.Lock()
		if c.result == nil && ev.Result != nil {
			c.result = ev.Result
			close(c.done)
		}
		c.mu.Unlock()
	}
}

// flushReasoning prints the reasoning summary gathered so far as one dim line.
func (c *client) flushReasoning() {
	c.mu.Lock()
	text := strings.Join(strings.Fields(c.reasoning.String()), " ")
	c.reasoning.Reset()
	c.mu.Unlock()
	if text != "" {
		c.term.Println(c.term.style(styleDim, "✻ "+clip(text, 160)))
	}
}

// toolVerb names a tool for a person.
func toolVerb(name string) string {
	switch name {
	case "exec_command":
		return "run"
	case "apply_patch":
		return "patch"
	}
	return name
}

// maxOutputLines bounds the command output shown per tool call.
const maxOutputLines = 8

// toolCompleted shows how a tool call ended, with the start of a command's output.
func (c *client) toolCompleted(t *hermesproto.ToolEvent) {
	if t == nil {
		return
	}
	mark := c.term.style(styleGreen, "✓")
	if t.IsError {
		mark = c.term.style(styleRed, "✗")
	}
	took := ""
	if t.DurationMs > 0 {
		took = fmt.Sprintf(" · %s", (time.Duration(t.DurationMs) * time.Millisecond).Round(time.Millisecond))
	}
	out := t.Result
	switch {
	case t.Name == "apply_patch" && !t.IsError:
		c.term.Printf("  %s applied%s", mark, took)
		return
	case t.Name == "apply_patch":
		c.term.Printf("  %s not applied (%s)%s", mark, t.Status, took)
		return
	case t.Name != "exec_command":
		c.term.Printf("  %s %s%s", mark, firstLine(out), took)
		return
	}
	status := "exit 0"
	if strings.HasPrefix(out, "[exit ") {
		if i := strings.IndexByte(out, ']'); i > 0 {
			status, out = out[1:i], strings.TrimPrefix(out[i+1:], " ")
		}
	} else if t.IsError {
		status = t.Status
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	more := ""
	if len(lines) > maxOutputLines {
		more = fmt.Sprintf("\n    … %d more line(s)", len(lines)-maxOutputLines)
		lines = lines[:maxOutputLines]
	}
	text := fmt.Sprintf("  %s %s%s", mark, status, took)
	if body := strings.Join(lines, "\n"); strings.TrimSpace(body) != "" {
		text += "\n" + c.term.style(styleDim, indent(body, "    │ ")+more)
	}
	c.term.Println(text)
}

// approvalIDPattern finds the approval id in a prompt's message: "... (approval a1):".
var approvalIDPattern = regexp.MustCompile(`\(approval ([^)\s]+)\)`)

// prompt answers one window/showMessageRequest: an approval. It shows what codex wants to do (and
// a patch's diff) and asks the person, or answers "Allow once" by itself with --yes or without a
// terminal.
func (c *client) prompt(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
	var a *hermesproto.Approval
	if m := approvalIDPattern.FindStringSubmatch(p.Message); m != nil {
		a = c.waitApproval(m[1], 2*time.Second)
	}
	if a != nil {
		c.mu.Lock()
		c.prompted[a.ItemID] = true
		c.mu.Unlock()
	}
	lines := strings.SplitN(strings.TrimSpace(p.Message), "\n", 2)
	text := c.term.style(styleBold+"\033[33m", "? "+lines[0])
	if len(lines) > 1 {
		text += "\n" + indent(lines[1], "    ")
	}
	c.term.Println(text)
	if a != nil && a.Kind == hermesproto.ApprovalKindPatch && len(a.Changes) > 0 {
		diff := relativeDiff(a.Diff(), a.Folder)
		c.term.Diff(diff)
		c.mu.Lock()
		c.patches = append(c.patches, diff)
		c.mu.Unlock()
	}
	titles := make([]string, 0, len(p.Actions))
	for _, act := range p.Actions {
		titles = append(titles, act.Title)
	}
	title := c.ask.choose(c.term, titles)
	c.mu.Lock()
	c.prompts++
	c.mu.Unlock()
	if title == "" {
		return nil // a null answer: Deny
	}
	return &protocol.MessageActionItem{Title: title}
}

// waitApproval returns the approval event with this id, waiting a little for it: the server sends
// the event and the prompt from different goroutines, so the prompt may come first.
func (c *client) waitApproval(id string, wait time.Duration) *hermesproto.Approval {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		c.mu.Lock()
		a, ok := c.approvals[id]
		arrived := c.arrived
		c.mu.Unlock()
		if ok {
			return &a
		}
		select {
		case <-arrived:
		case <-timer.C:
			return nil
		}
	}
}

// relative shows the paths under the workspace folder relative to it.
func (c *client) relative(s string) string {
	return relativeDiff(s, c.folder)
}

// relativeDiff shows the paths of a diff relative to the workspace folder: absolute ones, and the
// "a/..." and "b/..." of a git diff rooted above the folder (codex roots its turn diff where it
// sees fit).
func relativeDiff(diff, folder string) string {
	folder = filepath.Clean(folder)
	if folder == "" || folder == "." || folder == string(filepath.Separator) {
		return diff
	}
	parts := strings.Split(strings.TrimPrefix(folder, string(filepath.Separator)), string(filepath.Separator))
	// Only tails of two folders or more: "a/calc/" alone may be a folder inside the workspace.
	for i := 0; i+2 <= len(parts); i++ {
		tail := strings.Join(parts[i:], "/") + "/"
		diff = strings.ReplaceAll(diff, " a/"+tail, " a/")
		diff = strings.ReplaceAll(diff, " b/"+tail, " b/")
	}
	return strings.ReplaceAll(diff, folder+string(filepath.Separator), "")
}

// initialize sends initialize and initialized, with the workspace folder and the settings as
// initializationOptions; it says which server answered.
func (c *client) initialize(ctx context.Context, folder string, settings map[string]any) (serverInfo string, err error) {
	res, err := c.ed.Initialize(ctx, []string{folder}, settings)
	if err != nil {
		return "", fmt.Errorf("initialize: %w", err)
	}
	info := "a server without serverInfo"
	if s := res.ServerInfo; s != nil {
		info = s.Name + " " + s.Version
	}
	if cp := res.Capabilities.ExecuteCommandProvider; cp != nil {
		info += fmt.Sprintf(", %d commands", len(cp.Commands))
	}
	return info, nil
}

// askResult is hermes.ask's answer.
type askResult struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	Folder   string `json:"folder"`
}

// execute runs a workspace/executeCommand with one argument object.
func (c *client) execute(ctx context.Context, command string, arg any, result any) error {
	raw, err := c.ed.ExecuteCommand(ctx, command, arg)
	if err != nil {
		return fmt.Errorf("%s: %w", command, err)
	}
	if result != nil {
		if err := json.Unmarshal(raw, result); err != nil {
			return fmt.Errorf("%s: decode the result: %w", command, err)
		}
	}
	return nil
}

// turnResult returns the turn's result, once turnCompleted arrived.
func (c *client) turnResult() *hermesproto.Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.result
}

// finalDiff is the turn's diff: codex's own when it sent one, else the diffs of the patches asked
// about.
func (c *client) finalDiff(folder string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if strings.TrimSpace(c.diff) != "" {
		return relativeDiff(c.diff, folder)
	}
	return strings.Join(c.patches, "")
}

// promptsAnswered counts the approval prompts answered.
func (c *client) promptsAnswered() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.prompts
}
