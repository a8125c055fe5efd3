package agenthost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/safetext"
)

// This file turns codex's questions into approvals a person answers: wider permissions
// (item/permissions/requestApproval), an MCP server's form or page (mcpServer/elicitation/request)
// and the agent's questions (item/tool/requestUserInput); and a person's Reply into codex's answer.
// Everything in a request is codex's or an MCP server's text: cleaned and bounded here, before any
// editor sees it.

// Bounds of what a question approval carries.
const (
	maxQuestions   = 20   // questions (or form fields) of one approval
	maxOptions     = 50   // options of one question
	questionChars  = 1000 // a question's text, an elicitation's message
	labelChars     = 200  // a header, an option's label or value, a path
	maxAnswerChars = 4096 // one answer as the person typed it
	maxAnswers     = 50   // answers to one question (a multiChoice)
)

// Reply is a person's answer to an approval: the decision and, for questions (decision once),
// the answers by question id.
type Reply struct {
	Decision hermesproto.Decision
	Answers  map[string][]string
}

// autoApprovable reports whether auto-approval may answer a: commands, patches, permissions and
// codex's approval of an MCP tool call; never questions, which need a person's answers.
func autoApprovable(a hermesproto.Approval) bool {
	return !a.Kind.Asks() || (a.Tool != "" && len(a.Questions) == 0)
}

// clean is codex's text for one line of a prompt, bounded to n characters.
func clean(s string, n int) string { return safetext.LineCut(s, n) }

// permissionsApproval is a permissions request as an approval.
func permissionsApproval(p *codex.PermissionsApprovalParams) hermesproto.Approval {
	perms := permissionsInWords(p.Permissions)
	return hermesproto.Approval{
		Kind: hermesproto.ApprovalKindPermissions, ThreadID: p.ThreadID, TurnID: p.TurnID, ItemID: p.ItemID,
		Cwd: p.Cwd, Reason: clean(p.Reason, questionChars), Permissions: &perms,
		Summary: Truncate(permissionsSummary(perms), previewMax),
	}
}

// permissionsInWords lists the access a request asks for: each path (or pattern, or named place)
// with read or write access; entries that deny access narrow it and are left out.
func permissionsInWords(p codex.RequestPermissionProfile) hermesproto.Permissions {
	var out hermesproto.Permissions
	out.Network = p.Network.Enabled
	add := func(list *[]string, what string) {
		if what != "" && len(*list) < maxQuestions && !slices.Contains(*list, what) {
			*list = append(*list, clean(what, labelChars))
		}
	}
	for _, path := range p.FileSystem.Read {
		add(&out.Read, path)
	}
	for _, path := range p.FileSystem.Write {
		add(&out.Write, path)
	}
	for _, e := range p.FileSystem.Entries {
		switch e.Access {
		case "read":
			add(&out.Read, fileSystemPath(e.Path))
		case "write":
			add(&out.Write, fileSystemPath(e.Path))
		}
	}
	return out
}

// fileSystemPath names a sandbox entry's path in words: the path, "files matching PATTERN", or a
// named place.
func fileSystemPath(raw json.RawMessage) string {
	var p struct {
		Type    string `json:"type"`
		Path    string `json:"path"`
		Pattern string `json:"pattern"`
		Value   struct {
			Kind    string `json:"kind"`
			Path    string `json:"path"`
			Subpath string `json:"subpath"`
		} `json:"value"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return "an unknown place"
	}
	switch p.Type {
	case "path":
		return p.Path
	case "glob_pattern":
		return "files matching " + p.Pattern
	case "special":
		var s string
		switch p.Value.Kind {
		case "root":
			s = "the whole file system (/)"
		case "minimal":
			s = "the system files every program needs"
		case "project_roots":
			s = "the project folders"
		case "tmpdir":
			s = "the temporary folder"
		case "slash_tmp":
			s = "/tmp"
		default:
			s = p.Value.Path
			if s == "" {
				s = "an unknown place"
			}
		}
		if p.Value.Subpath != "" {
			s += " (" + p.Value.Subpath + ")"
		}
		return s
	}
	return "an unknown place"
}

// permissionsSummary is a permissions approval in one line: "network access, write access to
// /srv/data".
func permissionsSummary(p hermesproto.Permissions) string {
	var parts []string
	if p.Network {
		parts = append(parts, "network access")
	}
	if len(p.Write) > 0 {
		parts = append(parts, "write access to "+strings.Join(p.Write, ", "))
	}
	if len(p.Read) > 0 {
		parts = append(parts, "read access to "+strings.Join(p.Read, ", "))
	}
	if len(parts) == 0 {
		return "wider permissions"
	}
	return strings.Join(parts, "; ")
}

// permissionsResponse is codex's answer to a permissions request: what it asked for (for the turn
// or the session), or nothing.
func permissionsResponse(p *codex.PermissionsApprovalParams, d hermesproto.Decision) codex.PermissionsResponse {
	switch d {
	case hermesproto.DecisionOnce:
		return codex.PermissionsResponse{Permissions: codex.GrantedPermissionProfile(p.Permissions), Scope: codex.ScopeTurn}
	case hermesproto.DecisionSession:
		return codex.PermissionsResponse{Permissions: codex.GrantedPermissionProfile(p.Permissions), Scope: codex.ScopeSession}
	}
	return codex.PermissionsResponse{Scope: codex.ScopeTurn}
}

// userInputApproval is the agent's questions as an approval. Each question must be answered.
func userInputApproval(p *codex.UserInputParams) (hermesproto.Approval, error) {
	if len(p.Questions) == 0 || len(p.Questions) > maxQuestions {
		return hermesproto.Approval{}, fmt.Errorf("%d questions (want 1 to %d)", len(p.Questions), maxQuestions)
	}
	a := hermesproto.Approval{Kind: hermesproto.ApprovalKindUserInput, ThreadID: p.ThreadID, TurnID: p.TurnID, ItemID: p.ItemID}
	for _, q := range p.Questions {
		if len(q.Options) > maxOptions {
			return hermesproto.Approval{}, fmt.Errorf("question %q has %d options (at most %d)", clean(q.ID, labelChars), len(q.Options), maxOptions)
		}
		out := hermesproto.Question{
			ID: q.ID, Header: clean(q.Header, labelChars), Text: clean(q.Question, questionChars),
			Type: hermesproto.QuestionTypeText, Other: q.IsOther, Secret: q.IsSecret, Required: true,
		}
		if len(q.Options) > 0 {
			out.Type = hermesproto.QuestionTypeChoice
		}
		for _, o := range q.Options {
			label := clean(o.Label, labelChars)
			// The answer codex gets is the label as the agent wrote it: the option's value.
			out.Options = append(out.Options, hermesproto.QuestionOption{Value: o.Label, Label: label, Description: clean(o.Description, questionChars)})
		}
		a.Questions = append(a.Questions, out)
	}
	if err := uniqueIDs(a.Questions); err != nil {
		return hermesproto.Approval{}, err
	}
	a.Summary = Truncate(questionsSummary(a.Questions), previewMax)
	return a, nil
}

// questionsSummary is a set of questions in one line: the first, and how many more.
func questionsSummary(qs []hermesproto.Question) string {
	if len(qs) == 0 {
		return "a question"
	}
	s := qs[0].Text
	if s == "" {
		s = qs[0].Header
	}
	if len(qs) > 1 {
		s += fmt.Sprintf(" (+%d more)", len(qs)-1)
	}
	return s
}

// userInputResponse is codex's answer to the agent's questions: the answers (none when declined).
func userInputResponse(r Reply) codex.UserInputResponse {
	out := codex.UserInputResponse{Answers: codex.ToolRequestUserInputResponseAnswers{}}
	if r.Decision != hermesproto.DecisionOnce && r.Decision != hermesproto.DecisionSession {
		return out
	}
	for id, answers := range r.Answers {
		out.Answers[id] = codex.ToolRequestUserInputAnswer{Answers: answers}
	}
	return out
}

// uniqueIDs refuses questions without an id or with the same id twice: answers are keyed by id.
func uniqueIDs(qs []hermesproto.Question) error {
	seen := make(map[string]bool, len(qs))
	for _, q := range qs {
		if q.ID == "" || len(q.ID) > labelChars || seen[q.ID] {
			return fmt.Errorf("question id %q is empty, too long or repeated", clean(q.ID, labelChars))
		}
		seen[q.ID] = true
	}
	return nil
}

// CheckAnswers checks a person's answers against the questions: every required question answered,
// no unknown question, a choice among its options (unless Other), one answer to each question but
// a multiChoice, numbers that parse, booleans "true" or "false", each answer bounded.
func CheckAnswers(qs []hermesproto.Question, answers map[string][]string) error {
	byID := make(map[string]hermesproto.Question, len(qs))
	for _, q := range qs {
		byID[q.ID] = q
	}
	for id := range answers {
		if _, ok := byID[id]; !ok {
			return fmt.Errorf("there is no question %q", clean(id, labelChars))
		}
	}
	var errs []error
	for _, q := range qs {
		if err := checkAnswer(q, answers[q.ID]); err != nil {
			name := q.Header
			if name == "" {
				name = q.ID
			}
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

func checkAnswer(q hermesproto.Question, answers []string) error {
	if len(answers) == 0 {
		if q.Required {
			return errors.New("needs an answer")
		}
		return nil
	}
	if len(answers) > 1 && q.Type != hermesproto.QuestionTypeMultiChoice {
		return errors.New("takes one answer")
	}
	if len(answers) > maxAnswers {
		return fmt.Errorf("takes at most %d answers", maxAnswers)
	}
	for _, ans := range answers {
		if len(ans) > maxAnswerChars {
			return fmt.Errorf("an answer is longer than %d bytes", maxAnswerChars)
		}
		switch q.Type {
		case hermesproto.QuestionTypeNumber:
			if _, err := strconv.ParseFloat(strings.TrimSpace(ans), 64); err != nil {
				return fmt.Errorf("%q is not a number", clean(ans, labelChars))
			}
		case hermesproto.QuestionTypeInteger:
			if _, err := strconv.ParseInt(strings.TrimSpace(ans), 10, 64); err != nil {
				return fmt.Errorf("%q is not a whole number", clean(ans, labelChars))
			}
		case hermesproto.QuestionTypeBoolean, hermesproto.QuestionTypeChoice, hermesproto.QuestionTypeMultiChoice:
			if !q.Other && !slices.ContainsFunc(q.Options, func(o hermesproto.QuestionOption) bool { return o.Value == ans }) {
				return fmt.Errorf("%q is not one of its options", clean(ans, labelChars))
			}
		}
	}
	return nil
}

// publicAnswers are the answers that may be recorded and shown: all but a secret question's.
func publicAnswers(qs []hermesproto.Question, answers map[string][]string) map[string][]string {
	if len(answers) == 0 {
		return nil
	}
	out := make(map[string][]string, len(answers))
	for _, q := range qs {
		if a, ok := answers[q.ID]; ok && !q.Secret {
			out[q.ID] = slices.Clone(a)
		}
	}
	return out
}

// orderedKeys returns the keys of a JSON object in the order they are written (a form's fields are
// asked in its order), at most limit of them.
func orderedKeys(raw json.RawMessage, limit int) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		if len(keys) == limit {
			return nil, fmt.Errorf("more than %d fields", limit)
		}
		keys = append(keys, key)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}
