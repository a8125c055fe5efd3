package agenthost

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// This file reads an MCP server's elicitation (a form of flat fields, or a page to visit) into an
// approval's questions, and a person's answers into the form's content.

// elicitationApproval is an MCP elicitation as an approval. A form whose schema it cannot read
// fails: the elicitation is declined rather than half asked.
func elicitationApproval(p *codex.McpElicitationParams) (hermesproto.Approval, error) {
	a := hermesproto.Approval{
		Kind: hermesproto.ApprovalKindElicitation, ThreadID: p.ThreadID, TurnID: p.TurnID,
		Server: clean(p.ServerName, labelChars), Message: clean(p.Message, questionChars),
	}
	if tool, ok := p.ToolCallApproval(); ok {
		a.Tool = clean(tool, labelChars)
	}
	switch p.Mode {
	case codex.ElicitationURL:
		if p.URL == "" {
			return hermesproto.Approval{}, fmt.Errorf("a %s elicitation without a url", p.Mode)
		}
		a.URL = clean(p.URL, questionChars)
	case codex.ElicitationForm, "openai/form", "openaiForm":
		qs, err := formQuestions(p.RequestedSchema)
		if err != nil {
			return hermesproto.Approval{}, fmt.Errorf("the form of %q: %w", a.Server, err)
		}
		a.Questions = qs
	default:
		return hermesproto.Approval{}, fmt.Errorf("elicitation mode %q is not understood", clean(p.Mode, labelChars))
	}
	a.Summary = Truncate(a.Server+": "+a.Message, previewMax)
	return a, nil
}

// fieldSchema is one field of an elicitation's form (MCP's PrimitiveSchemaDefinition): a string
// (maybe one of an enum), a number, an integer, a boolean, or an array of enum values.
type fieldSchema struct {
	Type        string          `json:"type"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Enum        []string        `json:"enum"`
	EnumNames   []string        `json:"enumNames"`
	OneOf       []constOption   `json:"oneOf"`
	AnyOf       []constOption   `json:"anyOf"`
	Items       *fieldSchema    `json:"items"`
	Default     json.RawMessage `json:"default"`
}

// constOption is a titled option of an enum field ({const, title}).
type constOption struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// formQuestions reads a form's schema: {type: object, properties: {name: field}, required: [...]},
// its fields in the order written.
func formQuestions(raw json.RawMessage) ([]hermesproto.Question, error) {
	var form struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil // nothing to fill in: a confirmation
	}
	if err := json.Unmarshal(raw, &form); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	if form.Type != "" && form.Type != "object" {
		return nil, fmt.Errorf("schema type %q is not an object", clean(form.Type, labelChars))
	}
	var order []string
	if len(form.Properties) > 0 {
		var props struct {
			Properties json.RawMessage `json:"properties"`
		}
		_ = json.Unmarshal(raw, &props)
		keys, err := orderedKeys(props.Properties, maxQuestions)
		if err != nil {
			return nil, fmt.Errorf("schema properties: %w", err)
		}
		order = keys
	}
	var qs []hermesproto.Question
	for _, name := range order {
		var f fieldSchema
		if err := json.Unmarshal(form.Properties[name], &f); err != nil {
			return nil, fmt.Errorf("field %q: %w", clean(name, labelChars), err)
		}
		q, err := fieldQuestion(name, f)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", clean(name, labelChars), err)
		}
		q.Required = slices.Contains(form.Required, name)
		qs = append(qs, q)
	}
	if err := uniqueIDs(qs); err != nil {
		return nil, err
	}
	return qs, nil
}

// fieldQuestion is one form field as a question.
func fieldQuestion(name string, f fieldSchema) (hermesproto.Question, error) {
	q := hermesproto.Question{ID: name, Header: clean(f.Title, labelChars), Text: clean(f.Description, questionChars)}
	if q.Text == "" {
		q.Text = q.Header
	}
	if q.Text == "" {
		q.Text = clean(name, labelChars)
	}
	switch f.Type {
	case "string":
		q.Type = hermesproto.QuestionTypeText
		if opts := enumOptions(f); len(opts) > 0 {
			q.Type, q.Options = hermesproto.QuestionTypeChoice, opts
		}
	case "number":
		q.Type = hermesproto.QuestionTypeNumber
	case "integer":
		q.Type = hermesproto.QuestionTypeInteger
	case "boolean":
		q.Type = hermesproto.QuestionTypeBoolean
		q.Options = []hermesproto.QuestionOption{{Value: "true", Label: "Yes"}, {Value: "false", Label: "No"}}
	case "array":
		if f.Items == nil {
			return q, fmt.Errorf("an array without items")
		}
		q.Type, q.Options = hermesproto.QuestionTypeMultiChoice, enumOptions(*f.Items)
		if len(q.Options) == 0 {
			return q, fmt.Errorf("an array whose items are not options")
		}
	default:
		return q, fmt.Errorf("type %q is not understood", clean(f.Type, labelChars))
	}
	if len(q.Options) > maxOptions {
		return q, fmt.Errorf("%d options (at most %d)", len(q.Options), maxOptions)
	}
	q.Default = defaultAnswers(f.Default)
	return q, nil
}

// enumOptions are an enum field's options: {const, title} items, or enum values with their names.
func enumOptions(f fieldSchema) []hermesproto.QuestionOption {
	var out []hermesproto.QuestionOption
	for _, list := range [][]constOption{f.OneOf, f.AnyOf} {
		for _, o := range list {
			label := o.Title
			if label == "" {
				label = o.Const
			}
			out = append(out, hermesproto.QuestionOption{Value: o.Const, Label: clean(label, labelChars)})
		}
	}
	for i, v := range f.Enum {
		label := v
		if i < len(f.EnumNames) && f.EnumNames[i] != "" {
			label = f.EnumNames[i]
		}
		out = append(out, hermesproto.QuestionOption{Value: v, Label: clean(label, labelChars)})
	}
	return out
}

// defaultAnswers is a field's default as answers: a string, a number, a boolean or a list of
// strings; anything else is no default.
func defaultAnswers(raw json.RawMessage) []string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return nil
	}
	switch v := v.(type) {
	case string:
		return []string{clean(v, labelChars)}
	case float64:
		return []string{strconv.FormatFloat(v, 'f', -1, 64)}
	case bool:
		return []string{strconv.FormatBool(v)}
	case []any:
		var out []string
		for _, x := range v {
			if s, ok := x.(string); ok && len(out) < maxAnswers {
				out = append(out, clean(s, labelChars))
			}
		}
		return out
	}
	return nil
}

// elicitationResponse is codex's answer to an elicitation: accepted with the form's content,
// declined, or cancelled (the turn is stopped).
func elicitationResponse(a hermesproto.Approval, r Reply) codex.ElicitationResponse {
	switch r.Decision {
	case hermesproto.DecisionOnce, hermesproto.DecisionSession:
	case hermesproto.DecisionStop:
		return codex.ElicitationResponse{Action: codex.ElicitationCancel}
	default:
		return codex.ElicitationResponse{Action: codex.ElicitationDecline}
	}
	if a.URL != "" {
		return codex.ElicitationResponse{Action: codex.ElicitationAccept}
	}
	content := make(map[string]any, len(a.Questions))
	for _, q := range a.Questions {
		answers, ok := r.Answers[q.ID]
		if !ok || len(answers) == 0 {
			continue
		}
		content[q.ID] = typedAnswer(q, answers)
	}
	return codex.ElicitationResponse{Action: codex.ElicitationAccept, Content: content}
}

// typedAnswer is an answer as the form's field takes it: a number, a boolean, a list or a string.
// The answers were checked (CheckAnswers).
func typedAnswer(q hermesproto.Question, answers []string) any {
	first := strings.TrimSpace(answers[0])
	switch q.Type {
	case hermesproto.QuestionTypeNumber:
		f, _ := strconv.ParseFloat(first, 64)
		return f
	case hermesproto.QuestionTypeInteger:
		n, _ := strconv.ParseInt(first, 10, 64)
		return n
	case hermesproto.QuestionTypeBoolean:
		return first == "true"
	case hermesproto.QuestionTypeMultiChoice:
		return slices.Clone(answers)
	}
	return answers[0]
}
