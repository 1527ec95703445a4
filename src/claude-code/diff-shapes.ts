// Claude Code's file edits put to a person as a unified diff in place of the old and new text (Edit, MultiEdit), and
// the edited diff read back into the tool's input.
import { EditIssue } from './edit-issue.js';
import { isRecord, type Json, line, type ToolShape } from './tool-shape.js';
import { readUnifiedDiff, type TextChange, unifiedDiff } from './unified-diff.js';

/** `input` without `fields`; keys (`__proto__` too) are defined, never assigned. */
const without = (input: Json, fields: readonly string[]): Json =>
  Object.fromEntries(Object.entries(input).filter(([key]) => !fields.includes(key)));

/**
 * A tool whose input holds text changes (`changesOf`, in `fields`), shown as one unified diff in their place after
 * the file's path; an input whose changes are not text is shown as it is.
 */
function asDiff(
  fields: readonly string[],
  changesOf: (input: Json) => TextChange[] | undefined,
  inputOf: (changes: TextChange[]) => Json,
): ToolShape {
  return {
    view: (input) => {
      const changes = changesOf(input);
      if (changes === undefined) return input;
      const path = input['file_path'] === undefined ? {} : { file_path: input['file_path'] };
      return { ...path, diff: unifiedDiff(changes), ...without(input, fields) };
    },
    input: (view, original) => {
      if (changesOf(original) === undefined) return view;
      if (typeof view['diff'] !== 'string') throw new EditIssue('diff', 'must be the text of a unified diff');
      return { ...without(view, ['diff']), ...inputOf(readUnifiedDiff(view['diff'])) };
    },
    describe: (view) => {
      const hunks = typeof view['diff'] === 'string' ? view['diff'].split(/^@@ /m).length - 1 : 0;
      return `Edit ${line(view['file_path'])}${hunks > 1 ? ` (${hunks} changes)` : ''}`;
    },
  };
}

/** Edit: `old_string` and `new_string` as the one hunk of a diff. */
export const edit = asDiff(
  ['old_string', 'new_string'],
  (input) =>
    typeof input['old_string'] === 'string' && typeof input['new_string'] === 'string'
      ? [{ oldText: input['old_string'], newText: input['new_string'] }]
      : undefined,
  (changes) => {
    if (changes.length !== 1)
      throw new EditIssue('diff', `an Edit makes one change; the edited diff has ${changes.length} hunks`);
    return { old_string: changes[0]!.oldText, new_string: changes[0]!.newText };
  },
);

/** MultiEdit: each of `edits` as a hunk (`(replace all)` in the header of one that replaces every occurrence). */
export const multiEdit = asDiff(
  ['edits'],
  ({ edits }) =>
    Array.isArray(edits) &&
    edits.every(
      (item) => isRecord(item) && typeof item['old_string'] === 'string' && typeof item['new_string'] === 'string',
    )
      ? edits.map((item: Json) => ({
          oldText: item['old_string'] as string,
          newText: item['new_string'] as string,
          replaceAll: item['replace_all'] === true,
        }))
      : undefined,
  (changes) => ({
    edits: changes.map((change) => ({
      old_string: change.oldText,
      new_string: change.newText,
      ...(change.replaceAll ? { replace_all: true } : {}),
    })),
  }),
);
