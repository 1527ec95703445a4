// Why a person's edit cannot be turned back into the tool's input: the field and what is wrong with it. Caught where
// the request's id and tool are known and thrown on as an `InvalidEditError`.

/** An approved edit that does not fit the tool's input: `path` names the edited field. */
export class EditIssue extends Error {
  readonly path: string;

  constructor(path: string, message: string) {
    super(message);
    this.name = new.target.name;
    this.path = path;
  }
}
