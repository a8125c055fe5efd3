package codextest

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// RequestPermissions asks for wider permissions as codex does (item/permissions/requestApproval,
// permissions shaped as codex's RequestPermissionProfile: {network: {enabled}, fileSystem: {read,
// write, entries}}) and returns the answer.
func (ft *FakeTurn) RequestPermissions(permissions map[string]any, reason string) (codex.PermissionsResponse, error) {
	params := map[string]any{
		"itemId": ft.conn.f.nextID("call"), "cwd": ft.Cwd, "permissions": permissions,
		"startedAtMs": time.Now().UnixMilli(), "environmentId": nil, "reason": nil,
	}
	if reason != "" {
		params["reason"] = reason
	}
	var res codex.PermissionsResponse
	return res, ft.question(codex.RequestPermissionsApproval, params, &res)
}

// Elicit sends an MCP server's elicitation as codex relays it (mcpServer/elicitation/request): a form
// (mode form, schema the requestedSchema) or, with url set, a page to visit (mode url).
func (ft *FakeTurn) Elicit(server, message string, schema any, url string) (codex.ElicitationResponse, error) {
	params := map[string]any{"serverName": server, "message": message, "_meta": nil, "environmentId": nil}
	if url != "" {
		params["mode"], params["url"], params["elicitationId"] = codex.ElicitationURL, url, ft.conn.f.nextID("elicitation")
	} else {
		params["mode"], params["requestedSchema"] = codex.ElicitationForm, schema
	}
	var res codex.ElicitationResponse
	return res, ft.question(codex.RequestMcpElicitation, params, &res)
}

// AskUser sends the agent's questions (item/tool/requestUserInput: each {id, header, question,
// options?: [{label, description}], isOther?, isSecret?}) and returns the answers.
func (ft *FakeTurn) AskUser(questions []map[string]any) (codex.UserInputResponse, error) {
	params := map[string]any{"itemId": ft.conn.f.nextID("call"), "questions": questions, "isBlocking": true}
	var res codex.UserInputResponse
	return res, ft.question(codex.RequestToolUserInput, params, &res)
}

// question sends a server request, then serverRequest/resolved as codex does, and decodes the
// answer into res.
func (ft *FakeTurn) question(method string, params map[string]any, res any) error {
	id, raw, rpcErr, err := ft.request(method, params, true)
	if err != nil {
		return err
	}
	ft.conn.notify(codex.NotifyServerRequestResolved, map[string]any{"threadId": ft.ThreadID, "requestId": id})
	if rpcErr != nil {
		return rpcErr
	}
	if err := json.Unmarshal(raw, res); err != nil {
		return fmt.Errorf("codextest: %s answer %s: %w", method, raw, err)
	}
	return nil
}
