/**
 * Shows every time on the page in the browser's time zone (the server writes UTC): date and time as the browser's
 * locale writes them, with the exact ISO time left in the element's title.
 *
 * @example
 * showLocalTimes(document);
 */
export function showLocalTimes(root: ParentNode): void {
  for (const time of root.querySelectorAll<HTMLTimeElement>('time[datetime]')) {
    const at = new Date(time.dateTime);
    if (Number.isNaN(at.getTime())) continue;
    time.textContent = at.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
    time.title = time.dateTime;
  }
}
