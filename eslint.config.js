// Lint: typescript-eslint's type-checked recommended rules over the server, the console, tests,
// benches, scripts and examples. Plain JavaScript files (workers, hook scripts, this file) get
// the untyped rules. test/generated-clients is compiled by its test against freshly generated
// clients, outside the project's tsconfig.
import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.start/', 'web/dist/', 'test/generated/', 'test/generated-clients/', 'test-results/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Destructuring a key away to get the rest is how the code base omits a field from a copy.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      // An aborted wait rejects with its signal's reason, whatever that is, as `throw` may (only-throw-error's default).
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // Modules add their services to ToolServices by declaration merging: `interface ToolServices extends TheirServices {}`.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: globals.node },
  },
)
