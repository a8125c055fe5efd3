package main

import (
	"encoding/json"

	"github.com/hermes-lsp/hermes-lsp/lsp/settings"
)

// This file is the doctor's table of the settings in force and where each came from.

func settingRows(st settings.Settings, from map[string]string) []doctorSetting {
	source := func(key string) string {
		if s, ok := from[key]; ok {
			return s
		}
		return "default"
	}
	str := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	rows := append(agentRows(st, source), []doctorSetting{
		{"codex.path", str(orDefault(st.Codex.Path, "codex")), source("codex.path")},
		{"codex.args", str(st.Codex.Args), source("codex.args")},
		{"codex.home", str(orDefault(st.Codex.Home, "~/.codex")), source("codex.home")},
		{"codex.model", str(orDefault(st.Codex.Model, "codex's default")), source("codex.model")},
		{"codex.approvalPolicy", str(st.Codex.ApprovalPolicy), source("codex.approvalPolicy")},
		{"codex.sandbox", str(st.Codex.Sandbox), source("codex.sandbox")},
		{"approvals.mode", str(st.Approvals.Mode), source("approvals.mode")},
		{"approvals.timeoutSeconds", str(st.Approvals.TimeoutSeconds), source("approvals.timeoutSeconds")},
		{"yolo", str(st.Yolo), source("yolo")},
		{"turnTimeoutSeconds", str(st.TurnTimeoutSeconds), source("turnTimeoutSeconds")},
		{"stateDir", str(st.StateDir), source("stateDir")},
		{"prewarm", str(st.Prewarm), source("prewarm")},
	}...)
	if len(st.Codex.Env) > 0 {
		keys := make([]string, 0, len(st.Codex.Env))
		for k := range st.Codex.Env {
			keys = append(keys, k) // the names only: values may be secrets
		}
		rows = append(rows, doctorSetting{"codex.env", str(keys), source("codex.env")})
	}
	return rows
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

// flatKeys lists the keys of m and its nested objects, joined with dots.
func flatKeys(prefix string, m map[string]any) []string {
	var keys []string
	for k, v := range m {
		key := prefix + k
		if sub, ok := v.(map[string]any); ok && key != "codex.env" {
			keys = append(keys, flatKeys(key+".", sub)...)
			continue
		}
		keys = append(keys, key)
	}
	return keys
}
