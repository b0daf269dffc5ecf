/**
 * Triage comments' Markdown as HTML: the one place the web UI sets raw HTML (`dangerouslySetInnerHTML`).
 * markdown-it with `html: false` escapes every tag a comment holds (`<script>` is shown as text), its
 * link check refuses `javascript:`, `vbscript:`, `file:` and `data:` addresses (they stay text), and
 * this renderer goes further: links only to `http`, `https` and `mailto` addresses, each
 * `rel="nofollow noopener noreferrer"`; no images (they would load from anywhere the author chose).
 * Markdown's own syntax produces no attribute but `href`, so no event attribute can come out.
 */
import MarkdownIt from 'markdown-it';

const SAFE_LINK = /^(https?:|mailto:)/i;

const md = new MarkdownIt('default', { html: false, linkify: true, typographer: false, breaks: true });
md.disable(['image']);
md.validateLink = (url) => SAFE_LINK.test(url.trim());

const renderToken = md.renderer.renderToken.bind(md.renderer);
md.renderer.rules.link_open = (tokens, idx, options) => {
  tokens[idx]!.attrSet('rel', 'nofollow noopener noreferrer');
  return renderToken(tokens, idx, options);
};

/** A comment's Markdown rendered to HTML that holds no script, no event attribute and no unsafe link. */
export function renderMarkdown(text: string): string {
  return md.render(text);
}
