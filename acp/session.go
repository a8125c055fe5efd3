package acp

import (
	"context"
	"errors"
	"fmt"
)

// This file is what the client asks of the agent: sessions and their prompts. A method the agent
// does not advertise fails at once with an error that wraps errors.ErrUnsupported.

// unsupported is the error of a method the agent does not advertise.
func (c *Client) unsupported(method, capability string) error {
	return fmt.Errorf("%s: %s does not advertise it (%s): %w", method, c.name, capability, errors.ErrUnsupported)
}

// Authenticate signs in with one of the methods the agent offered (Info().AuthMethods); an agent
// that wants it answers session/new with ErrorCodeAuthenticationRequired until then.
func (c *Client) Authenticate(ctx context.Context, methodID string) error {
	return c.call(ctx, MethodAuthenticate, AuthenticateRequest{MethodID: methodID}, nil)
}

// NewSession starts a session in the folder cwd (an absolute path) with the MCP servers given.
func (c *Client) NewSession(ctx context.Context, cwd string, mcpServers []MCPServer) (*NewSessionResponse, error) {
	var res NewSessionResponse
	if err := c.call(ctx, MethodSessionNew, NewSessionRequest{Cwd: cwd, MCPServers: orEmpty(mcpServers)}, &res); err != nil {
		return nil, err
	}
	if res.SessionID == "" {
		return nil, fmt.Errorf("%s: %s answered without a session id", MethodSessionNew, c.name)
	}
	return &res, nil
}

// LoadSession loads the session sessionID, which the agent replays as session/update
// notifications: every one of them has reached the Handler when LoadSession returns. It needs the
// agent's loadSession capability.
func (c *Client) LoadSession(ctx context.Context, sessionID, cwd string, mcpServers []MCPServer) (*LoadSessionResponse, error) {
	if !c.info.AgentCapabilities.LoadSession {
		return nil, c.unsupported(MethodSessionLoad, "loadSession")
	}
	var res LoadSessionResponse
	params := LoadSessionRequest{SessionID: sessionID, Cwd: cwd, MCPServers: orEmpty(mcpServers)}
	err := c.call(ctx, MethodSessionLoad, params, &res)
	if err := c.caughtUp(ctx, MethodSessionLoad, err); err != nil {
		return nil, err
	}
	return &res, nil
}

// ResumeSession resumes the session sessionID without its history being replayed. It needs the
// agent's sessionCapabilities.resume.
func (c *Client) ResumeSession(ctx context.Context, sessionID, cwd string, mcpServers []MCPServer) (*ResumeSessionResponse, error) {
	if c.info.AgentCapabilities.SessionCapabilities.Resume == nil {
		return nil, c.unsupported(MethodSessionResume, "sessionCapabilities.resume")
	}
	var res ResumeSessionResponse
	params := ResumeSessionRequest{SessionID: sessionID, Cwd: cwd, MCPServers: orEmpty(mcpServers)}
	if err := c.call(ctx, MethodSessionResume, params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// ListSessions lists the agent's sessions in the folder cwd ("" for every folder), a page at a
// time: cursor is "" for the first, then the previous page's NextCursor. It needs the agent's
// sessionCapabilities.list.
func (c *Client) ListSessions(ctx context.Context, cwd, cursor string) (*ListSessionsResponse, error) {
	if c.info.AgentCapabilities.SessionCapabilities.List == nil {
		return nil, c.unsupported(MethodSessionList, "sessionCapabilities.list")
	}
	var res ListSessionsResponse
	if err := c.call(ctx, MethodSessionList, ListSessionsRequest{Cwd: cwd, Cursor: cursor}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// CloseSession ends the session sessionID in the agent, which frees what it holds for it. It needs
// the agent's sessionCapabilities.close.
func (c *Client) CloseSession(ctx context.Context, sessionID string) error {
	if c.info.AgentCapabilities.SessionCapabilities.Close == nil {
		return c.unsupported(MethodSessionClose, "sessionCapabilities.close")
	}
	return c.call(ctx, MethodSessionClose, CloseSessionRequest{SessionID: sessionID}, nil)
}

// Prompt sends the user's prompt to the session sessionID and returns the agent's answer, once the
// turn is over: its StopReason (StopReasonEndTurn, StopReasonCancelled, ...). The turn's updates go
// to the Handler as the agent sends them; every one it sent before its answer has reached the
// Handler when Prompt returns, and so has every one it sent before it ended, when it ends
// meanwhile: then Prompt fails with an error that says how it ended and what it wrote last.
func (c *Client) Prompt(ctx context.Context, sessionID string, prompt []ContentBlock) (*PromptResponse, error) {
	res, err := c.PromptWithUsage(ctx, sessionID, prompt)
	if err != nil {
		return nil, err
	}
	return &res.PromptResponse, nil
}

// Cancel asks the agent to stop the session's prompt (the session/cancel notification); the
// prompt then ends with StopReasonCancelled. The session's permission requests still waiting, and
// those that come until its next Prompt, are answered "cancelled", as the protocol requires: the
// context of every request of the session the Handler answers meanwhile ends (its cause is
// ErrCancelled).
func (c *Client) Cancel(sessionID string) error {
	return c.inflight.cancelSession(sessionID, ErrCancelled, func() error {
		return c.conn.Notify(MethodSessionCancel, CancelNotification{SessionID: sessionID})
	})
}

// SetMode switches the session to one of the modes the agent offered (its SessionModeState).
func (c *Client) SetMode(ctx context.Context, sessionID, modeID string) error {
	return c.call(ctx, MethodSessionSetMode, SetSessionModeRequest{SessionID: sessionID, ModeID: modeID}, nil)
}

// SetConfigOption sets the session's configuration option configID (one the agent offered in
// ConfigOptions, of kind "select") to value. ACP v1 picks a session's model this way: the option of
// category SessionConfigOptionCategoryModel (session/set_model is not part of v1). It returns the
// options as they now are.
func (c *Client) SetConfigOption(ctx context.Context, sessionID, configID, value string) ([]SessionConfigOption, error) {
	params := SetSessionConfigOptionRequest{
		SetSessionConfigOptionRequestCommon:  SetSessionConfigOptionRequestCommon{SessionID: sessionID, ConfigID: configID},
		SetSessionConfigOptionRequestValueID: &SetSessionConfigOptionRequestValueID{Value: value},
	}
	var res SetSessionConfigOptionResponse
	if err := c.call(ctx, MethodSessionSetConfigOption, params, &res); err != nil {
		return nil, err
	}
	return res.ConfigOptions, nil
}

// TextBlock is a text content block: what a prompt is made of.
func TextBlock(text string) ContentBlock {
	return ContentBlock{Kind: ContentBlockKindText, TextContent: &TextContent{Text: text}}
}

// orEmpty returns s, or an empty slice for nil: the protocol wants a list where we have none.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
