package settings

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// AllowedCodexConfig lists the codex configuration keys hermes.codex.args may set with `-c key=value`,
// from any source. They choose a model and how it reasons; none of them can start a program, reach
// another server or widen what codex may do. Everything else (mcp_servers, notify,
// shell_environment_policy, model_providers and their base URLs, sandbox settings, features, ...)
// belongs in codex's own config.toml, which the user controls (hermes.codex.home chooses it).
var AllowedCodexConfig = []string{
	"model",
	"model_provider",
	"model_reasoning_effort",
	"model_reasoning_summary",
	"model_verbosity",
	"model_context_window",
	"model_auto_compact_token_limit",
	"hide_agent_reasoning",
	"show_raw_agent_reasoning",
}

// configKey is what a -c key may look like: plain dotted TOML keys. Quoted keys are refused rather
// than parsed, so no spelling of a forbidden key can pass.
var configKey = regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`)

// CheckCodexArgs accepts codex arguments that are only `-c key=value` (or `--config key=value`,
// `-c=key=value`, `--config=key=value`) pairs whose key is in AllowedCodexConfig. A value it does
// not understand is refused: it fails closed.
func CheckCodexArgs(args []string) error {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		var kv string
		switch {
		case arg == "-c" || arg == "--config":
			if i+1 >= len(args) {
				return fmt.Errorf("%s needs a key=value after it", arg)
			}
			i++
			kv = args[i]
		case strings.HasPrefix(arg, "-c="):
			kv = strings.TrimPrefix(arg, "-c=")
		case strings.HasPrefix(arg, "--config="):
			kv = strings.TrimPrefix(arg, "--config=")
		default:
			return fmt.Errorf("%q is not allowed: only -c key=value pairs with the keys %s are (put anything else in codex's config.toml)",
				arg, strings.Join(AllowedCodexConfig, ", "))
		}
		key, _, ok := strings.Cut(kv, "=")
		key = strings.TrimSpace(key)
		if !ok || !configKey.MatchString(key) {
			return fmt.Errorf("-c %q: want key=value", kv)
		}
		if !slices.Contains(AllowedCodexConfig, key) {
			return fmt.Errorf("-c %s is not allowed from settings: the keys allowed are %s (put anything else in codex's config.toml)",
				key, strings.Join(AllowedCodexConfig, ", "))
		}
	}
	return nil
}
