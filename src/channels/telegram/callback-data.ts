// What a button's callback_data holds: `cs:<short id>` (storeButtonIds), and on a question's option `cs:<id>:<index>`.

/** What `callback_data` of the buttons starts with; the webhook acts only on these. */
export const CALLBACK_PREFIX = 'cs:';

/** The short id a button's data names, and the option it picks (a question's), if any. */
export function readCallbackData(data: string): { readonly id: string; readonly option?: number } {
  const [id = '', option] = data.slice(CALLBACK_PREFIX.length).split(':');
  return option === undefined || !/^\d{1,2}$/.test(option) ? { id } : { id, option: Number(option) };
}
