import { decide } from './actions.js';
import { toolSchema } from './api.js';
import { checkSchema } from './schema-check.js';

let dialog: HTMLDialogElement | undefined;

function editorDialog(): HTMLDialogElement {
  if (dialog !== undefined) return dialog;
  dialog = document.createElement('dialog');
  dialog.id = 'editor';
  dialog.setAttribute('aria-labelledby', 'editor-title');
  dialog.innerHTML =
    '<form method="dialog"><h2 id="editor-title">Edit arguments</h2>' +
    '<p>Approve the call with these arguments instead. Redacted values show as they were redacted: replace them or the call gets that text.</p>' +
    '<label for="editor-json">Arguments (JSON)</label><textarea id="editor-json" spellcheck="false" aria-describedby="editor-issues"></textarea>' +
    '<div id="editor-issues" class="error" role="alert"></div>' +
    '<p class="actions"><button type="submit" value="approve" class="approve">Approve with these arguments</button> <button type="submit" value="cancel">Cancel</button></p></form>';
  document.body.append(dialog);
  return dialog;
}

/**
 * Opens the JSON editor on a card's arguments. Approving parses the JSON and checks it against the tool's JSON Schema
 * first: problems are listed and nothing is sent; the server checks again and its refusal is shown the same way.
 *
 * @example
 * editArguments(card);
 */
export function editArguments(card: HTMLElement): void {
  if (card.dataset['state'] !== 'pending') return;
  const editor = editorDialog();
  const textarea = editor.querySelector<HTMLTextAreaElement>('textarea')!;
  const issues = editor.querySelector<HTMLElement>('#editor-issues')!;
  textarea.value = JSON.stringify(JSON.parse(card.dataset['args'] ?? 'null'), null, 2);
  issues.textContent = '';
  const form = editor.querySelector('form')!;
  form.onsubmit = async (event) => {
    if ((event.submitter as HTMLButtonElement | null)?.value !== 'approve') return;
    event.preventDefault();
    let args: unknown;
    try {
      args = JSON.parse(textarea.value);
    } catch (error) {
      issues.textContent = `Not valid JSON: ${(error as Error).message}`;
      return;
    }
    const schema = await toolSchema(card.dataset['agent'] ?? '', card.dataset['tool'] ?? '');
    const found = schema === undefined ? [] : checkSchema(schema, args);
    if (found.length > 0) {
      issues.innerHTML = '';
      const list = document.createElement('ul');
      for (const issue of found)
        list.append(Object.assign(document.createElement('li'), { textContent: `${issue.path}: ${issue.message}` }));
      issues.append('Fix these before approving:', list);
      return;
    }
    if (await decide(card, 'approve', args)) editor.close();
    else issues.textContent = card.querySelector('.state')?.textContent ?? 'Not decided.';
  };
  editor.onclose = () => card.focus();
  editor.showModal();
  textarea.focus();
}
