package main

// This file is the doctor's part for an agent other than codex: its settings and its program.

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/agenthost/acpagent"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/lsp/settings"
)

// applyAgentFlags puts the agent of the command line and the environment (o.Agent) over st's.
func applyAgentFlags(st *settings.Settings, o doctorOptions, from map[string]string) {
	if o.Agent.Kind == "" {
		return
	}
	st.Agent = settings.AgentSettings{Kind: string(o.Agent.Kind), Command: o.Agent.Command, Args: slices.Clone(o.Agent.Args), Env: maps.Clone(o.Agent.Env)}
	for _, k := range []string{"agent.kind", "agent.command", "agent.args"} {
		from[k] = "command line or environment (--agent, HERMES_AGENT_KIND)"
	}
}

// agentRows are the agent's settings, for the report.
func agentRows(st settings.Settings, source func(string) string) []doctorSetting {
	str := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	rows := []doctorSetting{{"agent.kind", str(orDefault(st.Agent.Kind, string(agenthost.AgentCodex))), source("agent.kind")}}
	if st.Agent.Kind == "" || st.Agent.Kind == string(agenthost.AgentCodex) {
		return rows
	}
	rows = append(rows,
		doctorSetting{"agent.command", str(st.Agent.Command), source("agent.command")},
		doctorSetting{"agent.args", str(st.Agent.Args), source("agent.args")},
	)
	if len(st.Agent.Env) > 0 {
		rows = append(rows, doctorSetting{"agent.env", str(slices.Sorted(maps.Keys(st.Agent.Env))), source("agent.env")}) // names only
	}
	return rows
}

// checkAgent checks the ACP agent: its program found, then started and initialized as the server
// would (its name, version and what it supports reported), then ended.
func (r *doctorReport) checkAgent(ctx context.Context, o doctorOptions, st settings.Settings) {
	path, err := exec.LookPath(st.Agent.Command)
	if err != nil {
		r.add(doctorCheck{Name: "agent", Status: checkFail, Detail: err.Error(),
			Fix: "install the ACP agent (for example npm install -g @google/gemini-cli, then agent.args [\"--acp\"]) or set hermes.agent.command to its path"})
		return
	}
	r.add(doctorCheck{Name: "agent", Status: checkOK, Detail: "ACP agent " + st.Agent.Command + " at " + path})
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	cfg := st.HostConfig().Agent
	began := time.Now()
	agent, err := acpagent.Start(ctx, cfg, codex.Options{
		ClientInfo: codex.ClientInfo{Name: "hermes-lsp", Title: "hermes-lsp doctor", Version: o.Version}, StartTimeout: o.Timeout,
	}, acpagent.Editor{})
	if err != nil {
		r.add(doctorCheck{Name: "agent starts", Status: checkFail, Detail: err.Error(),
			Fix: "run `" + st.Agent.Command + " " + strings.Join(st.Agent.Args, " ") + "` by hand to see why it does not start (an ACP agent waits for JSON on its stdin)"})
		return
	}
	info := agent.Info()
	supports, lacks := info.Supports.Features()
	_ = agent.Close()
	r.add(doctorCheck{Name: "agent starts", Status: checkOK, Detail: fmt.Sprintf("%s %s answered initialize in %.1f s; supports: %s; lacks: %s",
		info.Name, orDefault(info.Version, "(no version)"), time.Since(began).Seconds(), orNone(supports), orNone(lacks))})
}

// orNone is list joined with commas, or "none".
func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}
