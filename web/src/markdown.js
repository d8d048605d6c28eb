// Markdown for answers: marked renders, DOMPurify sanitises (the model's text is never
// trusted as HTML), highlight.js colours code blocks of the common languages.
import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdownLanguage from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const languages = { bash, c, cpp, css, diff, go, java, javascript, json, markdown: markdownLanguage, python, rust, shell, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(languages)) hljs.registerLanguage(name, language);

const marked = new Marked({ gfm: true, breaks: false });

// Links open outside the page and tell the target nothing.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

function highlightIn(root) {
  for (const code of root.querySelectorAll('pre code')) {
    const match = /language-([\w+-]+)/.exec(code.className);
    if (match && hljs.getLanguage(match[1])) hljs.highlightElement(code);
  }
}

// Renders `text` as sanitised markdown into `element`.
export function renderMarkdown(element, text) {
  const html = marked.parse(text, { async: false });
  element.replaceChildren(DOMPurify.sanitize(html, { RETURN_DOM_FRAGMENT: true }));
  highlightIn(element);
}

// A JSON text, highlighted, into `element` (a <code>).
export function renderJson(element, text) {
  element.className = 'hljs language-json';
  // highlight.js escapes the text it wraps in its spans.
  // eslint-disable-next-line no-restricted-syntax
  element.innerHTML = hljs.highlight(text, { language: 'json' }).value;
}
