package agentstest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
)

// GeminiModel is the model Gemini CLI is set to. With "auto" (its default) Gemini CLI first asks a
// routing classifier, a generateContent call that the canned responses do not hold: it fails, is
// logged, and the turn goes on (with --fake-responses, strict, it would take the turn's response).
const GeminiModel = "gemini-2.5-flash"

// geminiSettings is the user settings.json of the throwaway home: no update check, no telemetry or
// usage statistics (both would go to Google), the API key sign-in, no IDE, a fixed model.
const geminiSettings = `{
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
  "telemetry": {"enabled": false},
  "privacy": {"usageStatisticsEnabled": false},
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "ide": {"enabled": false, "hasSeenNudge": true},
  "model": {"name": %q}
}
`

// prepareGemini writes Gemini CLI's settings and its canned responses for turns into the
// throwaway home. Gemini CLI reads the responses instead of asking a model: each model call takes
// the next response written for its kind (generateContentStream for a turn's steps), so the turns
// must be prompted in order.
func prepareGemini(t testing.TB, a *Agent, turns []Turn) error {
	dir := filepath.Join(a.Home, ".gemini")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), fmt.Appendf(nil, geminiSettings, GeminiModel), 0o600); err != nil {
		return err
	}
	responses := filepath.Join(a.Home, "fake-responses.jsonl")
	if err := WriteGeminiResponses(responses, geminiScript(turns, a.Work)...); err != nil {
		return err
	}
	// Non-strict: a model call of a kind the file does not hold (a generateContent by one of
	// Gemini CLI's helpers) fails on its own instead of taking the turn's next response.
	a.Args = []string{"--acp", "--fake-responses-non-strict", responses}
	a.Env = append(a.Env,
		"GEMINI_CLI_HOME="+a.Home,
		"GEMINI_API_KEY=fake-key", // picks the API key sign-in; the canned responses need no key
	)
	return nil
}

// geminiScript is the responses that play turns: for a turn with an Edit, a call of Gemini CLI's
// replace tool, then the turn's answer.
func geminiScript(turns []Turn, work string) []GeminiResponse {
	var out []GeminiResponse
	for _, t := range turns {
		if e := t.Edit; e != nil {
			out = append(out, GeminiCall("replace", map[string]any{
				"file_path":   filepath.Join(work, filepath.FromSlash(e.Path)),
				"instruction": "Make the change the user asked for.",
				"old_string":  e.Old,
				"new_string":  e.New,
			}))
		}
		out = append(out, GeminiText(t.Answer))
	}
	return out
}

// A GeminiResponse is one line of the file that `gemini --fake-responses` reads: the model
// method it answers ("generateContentStream", "generateContent", "countTokens", "embedContent")
// and its response, for a stream the list of its chunks (GenerateContentResponse objects).
type GeminiResponse struct {
	Method   string `json:"method"`
	Response any    `json:"response"`
}

// GeminiText is a streamed answer of text: one chunk per word group (as [fakemodel.Message]
// splits it), the last with finishReason STOP and the usage of [fakemodel.DefaultUsage].
func GeminiText(text string) GeminiResponse {
	words := strings.SplitAfter(text, " ")
	var chunks []any
	for i, w := range words {
		chunks = append(chunks, geminiChunk(map[string]any{"text": w}, i == len(words)-1))
	}
	return GeminiResponse{Method: "generateContentStream", Response: chunks}
}

// GeminiCall is a streamed call of the tool name (Gemini CLI's write_file, replace, read_file,
// run_shell_command, ...) with args.
func GeminiCall(name string, args map[string]any) GeminiResponse {
	part := map[string]any{"functionCall": map[string]any{"name": name, "args": args}}
	return GeminiResponse{Method: "generateContentStream", Response: []any{geminiChunk(part, true)}}
}

// geminiChunk is one GenerateContentResponse holding part; the last chunk of a response ends it.
func geminiChunk(part map[string]any, last bool) map[string]any {
	candidate := map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "index": 0}
	chunk := map[string]any{"candidates": []any{candidate}}
	if last {
		u := fakemodel.DefaultUsage
		candidate["finishReason"] = "STOP"
		chunk["usageMetadata"] = map[string]any{
			"promptTokenCount":        u.InputTokens,
			"cachedContentTokenCount": u.CachedTokens,
			"candidatesTokenCount":    u.OutputTokens - u.ReasoningTokens,
			"thoughtsTokenCount":      u.ReasoningTokens,
			"totalTokenCount":         u.InputTokens + u.OutputTokens,
		}
	}
	return chunk
}

// WriteGeminiResponses writes the responses to path, one JSON object a line, as
// `gemini --fake-responses` reads them.
func WriteGeminiResponses(path string, responses ...GeminiResponse) error {
	var b strings.Builder
	for _, r := range responses {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o600)
}
