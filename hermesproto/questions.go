package hermesproto

// This file is the shape of codex's questions: wider permissions (a permissions approval), an MCP
// server's form or link (an elicitation), and the agent's own questions with options (userInput).
// Each is an Approval: asked like one, answered with hermes.approve, recorded like one.

// Permissions is what a permissions approval asks for beyond codex's sandbox: network access, and
// read or write access to paths (a path, a glob pattern, or a named place such as the temporary
// folder, in words).
type Permissions struct {
	Network bool     `json:"network,omitempty"`
	Read    []string `json:"read,omitempty"`
	Write   []string `json:"write,omitempty"`
}

// QuestionType says what answer a question takes.
type QuestionType string

// Question types. A choice takes one of its options (or, with Other, any text); a multiChoice any
// number of them; text, number and integer a typed value; boolean "true" or "false".
const (
	QuestionTypeText        QuestionType = "text"
	QuestionTypeNumber      QuestionType = "number"
	QuestionTypeInteger     QuestionType = "integer"
	QuestionTypeBoolean     QuestionType = "boolean"
	QuestionTypeChoice      QuestionType = "choice"
	QuestionTypeMultiChoice QuestionType = "multiChoice"
)

// Question is one question of an elicitation (a field of the MCP server's form) or of a userInput
// approval. Its answers are strings: an option's Value, the text typed, a number in decimal,
// "true" or "false".
type Question struct {
	// ID names the question in hermes.approve's answers.
	ID string `json:"id"`
	// Header is a short title ("Database"); Text the question itself.
	Header string       `json:"header,omitempty"`
	Text   string       `json:"text"`
	Type   QuestionType `json:"type"`
	// Options are the answers offered (choice, multiChoice, boolean).
	Options []QuestionOption `json:"options,omitempty"`
	// Other says any text is accepted beside the options.
	Other bool `json:"other,omitempty"`
	// Secret says the answer is a secret: an editor hides it as it is typed, and it is never shown,
	// recorded or written to the transcript.
	Secret   bool     `json:"secret,omitempty"`
	Required bool     `json:"required,omitempty"`
	Default  []string `json:"default,omitempty"`
}

// QuestionOption is one answer a question offers: Value is what is sent, Label what is shown.
type QuestionOption struct {
	Value       string `json:"value"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// Action titles of the prompts that ask a question (window/showMessageRequest): Decline first, for
// the same reason as Deny; then the question's options by label, then Stop turn
// (ApprovalActionStop). An elicitation that asks the person to visit a page offers Done once they
// have, one whose form has no fields Accept.
const (
	QuestionActionDecline = "Decline"
	QuestionActionDone    = "Done"
	QuestionActionAccept  = "Accept"
)
