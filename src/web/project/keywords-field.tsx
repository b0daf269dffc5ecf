/** The keyword watches' textarea, one keyword per line, as the subscriptions page and onboarding show it. */

/** `typed`: what was sent back with `problems` (kept as typed); else the stored `keywords`. */
export function KeywordsField({
  keywords,
  typed,
  problems,
}: {
  keywords: readonly string[];
  typed?: string | undefined;
  problems: readonly string[];
}) {
  return (
    <div class={problems.length ? 'field has-error' : 'field'}>
      <label for="f-keywords">Keywords, one per line</label>
      <textarea
        id="f-keywords"
        name="keywords"
        rows={Math.min(12, Math.max(3, keywords.length + 1))}
        aria-invalid={problems.length ? 'true' : undefined}
        aria-describedby={`f-keywords-hint${problems.length ? ' f-keywords-error' : ''}`}
      >
        {typed ?? keywords.join('\n')}
      </textarea>
      <div class="hint" id="f-keywords-hint">
        At most 100, each 2 to 100 characters. Saved in lower case.
      </div>
      {problems.length > 0 && (
        <div class="error" id="f-keywords-error">
          {problems.join(' ')}
        </div>
      )}
    </div>
  );
}
