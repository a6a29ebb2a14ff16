/**
 * The password of a URL with credentials (`https://user:token@host`), wherever a text holds one:
 * everything from the user's colon to the last `@` before a space, since a value refused for
 * its odd characters (a `/` or `@` in the password) is the one most likely repeated. A URL
 * without credentials but with an `@` after a port (`http://h:1/a@b`) is masked too: showing
 * less is the safe mistake.
 */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:)(\S*)(@)/gi;
/**
 * The same without a scheme (`user:token@host`, as a flag's value or a variable's): a word
 * (after a space, a quote, `=` or the start) holding a colon and then an `@`. Not `scheme://`,
 * which URL_PASSWORD reads.
 */
const BARE_PASSWORD = /((?:^|[\s'"=(,])[^\s/@:'"=]*:)(?!\/\/)(\S*)(@)/g;

/**
 * `text` with the password of every URL in it shown as `***`: for a value obs repeats to the
 * user or an agent (an error naming what it refused, a setting found), which would otherwise
 * put the password in a terminal's scrollback, a CI log or a model's context. Pure.
 */
export function hideUrlPasswords(text: string): string {
  return text
    .replace(URL_PASSWORD, "$1***$3")
    .replace(BARE_PASSWORD, (match, user: string, password: string, at: string) =>
      password === "***" ? match : `${user}***${at}`,
    );
}
