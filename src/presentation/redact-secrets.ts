// Secrets taken out of a text that keeps everything else, for a developer's console: unlike publicText, which cuts a
// URL to its host and never shows a provider's words, this keeps the words and the URL, without what unlocks them.
import { defaultSecretKeys, isSecretKey } from './present-args.js';

const REDACTED = '[redacted]';
const secretTerms: ReadonlySet<string> = new Set(defaultSecretKeys);

/** API keys by their published prefixes: OpenAI and Anthropic `sk-`, Slack `xox?-`, GitHub `gh?_`, Google `AIza`, AWS `AKIA`. */
const KEY_SHAPES =
  /\b(?:sk-[A-Za-z0-9_-]{8,}|xox[abposr]-[A-Za-z0-9-]{8,}|gh[pousr]_[A-Za-z0-9]{20,}|AIza[A-Za-z0-9_-]{30,}|AKIA[A-Z0-9]{16})/g;
/** The credentials of an Authorization header's value. */
const AUTH_SCHEMES = /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{6,}/gi;
/** The user-info of a URL: `https://user:password@host`. */
const URL_USER_INFO = /\b([a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/?#@"'<>`]+@/gi;
/**
 * `name: value`, `name=value`, `"name": "value"`: a query parameter, a header, an object's field, a JSON member.
 * Names are bounded so a long word (a base64 blob) costs linear time, not quadratic.
 */
const NAMED_VALUE = /(["']?)([A-Za-z][\w.-]{0,63})\1(\s*[:=]\s*)("[^"\n]*"|'[^'\n]*'|[^\s"',;&}\])]+)/g;

/**
 * `text` without the secrets a failed request tends to quote: API keys by their prefixes, bearer and basic
 * credentials, a URL's user and password, and the value of any query parameter, header or field whose name says
 * secret (`api_key=`, `x-api-key:`, `"password":`), each as `[redacted]`.
 */
export function redactSecrets(text: string): string {
  return text
    .replace(KEY_SHAPES, REDACTED)
    .replace(AUTH_SCHEMES, `$1 ${REDACTED}`)
    .replace(URL_USER_INFO, `$1${REDACTED}@`)
    .replace(NAMED_VALUE, (match, quote: string, name: string, separator: string, value: string) => {
      if (!isSecretKey(name, secretTerms) || value.includes('[redacted')) return match;
      const quoted = /^["']/.test(value) ? value[0]! : '';
      return `${quote}${name}${quote}${separator}${quoted}${REDACTED}${quoted}`;
    });
}
