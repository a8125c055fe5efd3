package main

// This file is the doctor's part for an agent other than codex: its settings and its program.

import (
	"context"
	"encoding/json"
	"maps"
	"os/exec"
	"slices"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/lsp/settings"
)

// applyAgentFlags puts the agent of the command line and the environment (o.Agent) over st's.
func applyAgentFlags(st *settings.Settings, o doctorOptions, from map[string]string) {
	if o.Agent.Kind == "" {
		return
	}
	st.Agent = settings.AgentSettings{Kind: string(o.Agent.Kind), Command: o.Agent.Command, Args: slices.Clone(o.Agent.Args)}
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

// checkAgent checks the ACP agent's program: found, and where.
func (r *doctorReport) checkAgent(_ context.Context, st settings.Settings) {
	path, err := exec.LookPath(st.Agent.Command)
	if err != nil {
		r.add(doctorCheck{Name: "agent", Status: checkFail, Detail: err.Error(),
			Fix: "install the ACP agent (for example npm install -g @google/gemini-cli, then agent.args [\"--acp\"]) or set hermes.agent.command to its path"})
		return
	}
	r.add(doctorCheck{Name: "agent", Status: checkOK, Detail: "ACP agent " + st.Agent.Command + " at " + path})
}
