import { presentText } from '../../kit/index.js';

/** How much of a name (a person, a tool, an agent, a run, a grant's bound) the console shows before cutting it visibly. */
const NAME_MAX = 256;
/** How much of a text (a reason, a tool's result, an error) the console shows before cutting it visibly. */
const TEXT_MAX = 1000;

/**
 * A name someone else chose, as every console surface shows it: through the display filter (invisible and bidi
 * characters as `[U+XXXX]`), cut visibly past 256 characters. Not HTML-escaped: a page escapes it, a live card line
 * sets it as text.
 */
export const shownName = (name: string): string => presentText(name, '', NAME_MAX, []);

/** A reason, a tool's result or an error message, as every console surface shows it: the same filter, cut past 1,000 characters. */
export const shownText = (text: string): string => presentText(text, '', TEXT_MAX, []);

/** How much of a passage (the user's request, the agent's words) the console shows before cutting it visibly. */
const PASSAGE_MAX = 2000;

/** A passage someone else wrote (the user's request, the agent's words): the same filter, newlines kept, cut past 2,000 characters. */
export const shownPassage = (text: string): string => presentText(text, '', PASSAGE_MAX, []);
