// ESLint for the extension (make lint-editors): typescript-eslint's type-checked recommended rules
// over src/ and test/, ESLint's recommended ones over the JavaScript (the webview's script, the
// build and e2e scripts). Formatting is prettier's (.prettierrc), not ESLint's.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// State lives in the object context.ts makes, not at module scope: no mutable binding, and no map,
// set, emitter or other instance made when a module loads (a constant formatter or array is fine).
const moduleState = [
	{
		selector: 'Program > VariableDeclaration[kind!="const"], Program > ExportNamedDeclaration > VariableDeclaration[kind!="const"]',
		message: 'No mutable binding at module scope: keep state in the Hermes context object (src/context.ts).',
	},
	{
		selector:
			':matches(Program > VariableDeclaration, Program > ExportNamedDeclaration > VariableDeclaration) > VariableDeclarator > NewExpression[callee.name=/^(Map|Set|WeakMap|WeakSet|EventEmitter|TurnTracker|TurnRenderer|Chat)$/], :matches(Program > VariableDeclaration, Program > ExportNamedDeclaration > VariableDeclaration) > VariableDeclarator > NewExpression[callee.property.name="EventEmitter"]',
		message: 'No map, set, emitter or tracker made at module scope: keep state in the Hermes context object (src/context.ts).',
	},
];

export default tseslint.config(
	{
		ignores: [
			'node_modules/',
			'dist/',
			'out/',
			'server/',
			'.e2e/',
			'src/hermesproto_commands.ts',
			'src/hermesproto_events.ts',
			'src/hermesproto_questions.ts',
			'src/hermesproto_changes.ts',
		],
	},
	{
		files: ['**/*.{js,mjs}'],
		extends: [js.configs.recommended],
		languageOptions: { globals: globals.node },
	},
	{
		files: ['e2e/drive.mjs', 'e2e/changes.mjs'],
		// page.evaluate's functions run in the page.
		languageOptions: { globals: { ...globals.node, ...globals.browser } },
	},
	{
		files: ['media/chat.js'],
		languageOptions: { sourceType: 'script', globals: { ...globals.browser, acquireVsCodeApi: 'readonly' } },
	},
	{
		files: ['**/*.ts'],
		extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
		languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
		rules: {
			'no-restricted-syntax': ['error', ...moduleState],
			// node:test's test() returns a promise the runner itself awaits.
			'@typescript-eslint/no-floating-promises': [
				'error',
				{ allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'suite', 'describe', 'it'] }] },
			],
		},
	},
);
