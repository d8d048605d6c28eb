// ESLint for the chat page: the recommended rules plus a few that catch real mistakes in
// browser code; src/ runs in the browser, the tests and the build in Node.
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['node_modules/', 'dist/'] },
  js.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      eqeqeq: ['error', 'always'],
      'no-var': 'error',
      'prefer-const': 'error',
      'no-implicit-globals': 'error',
      'no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^_' }],
      'no-eval': 'error',
      'no-implied-eval': 'error',
      'no-new-func': 'error',
      'no-script-url': 'error',
      'no-shadow': 'error',
      'no-throw-literal': 'error',
      // HTML from the model goes through DOMPurify; nothing else writes markup.
      'no-restricted-syntax': ['error', {
        selector: "AssignmentExpression[left.property.name=/^(innerHTML|outerHTML)$/]",
        message: 'Build DOM nodes, or sanitise with DOMPurify (markdown.js)',
      }, {
        selector: "CallExpression[callee.property.name='insertAdjacentHTML']",
        message: 'Build DOM nodes, or sanitise with DOMPurify (markdown.js)',
      }],
    },
  },
  { files: ['src/**/*.js'], languageOptions: { globals: globals.browser } },
  { files: ['test/**/*.js', 'build.mjs', 'eslint.config.js'], languageOptions: { globals: globals.node } },
];
