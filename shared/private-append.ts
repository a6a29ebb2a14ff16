import { closeSync, constants, fchmodSync, fstatSync, openSync, writeSync } from "node:fs";
import { ownUid, PRIVATE_FILE_MODE } from "./state-dir.js";

/**
 * Appends `text` to `path`, creating it owner-only. A file that already exists is made
 * owner-only too (its mode set on the opened file): what obs appends (progress lines, lessons)
 * holds what pages showed, and a file an earlier tool left readable by others would otherwise
 * stay so. Never through a link planted at `path` (O_NOFOLLOW), never into a FIFO or a file of
 * another user's: each is refused with an error naming the path.
 */
export function appendPrivateFile(path: string, text: string): void {
  let fd: number;
  try {
    fd = openSync(
      path,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      PRIVATE_FILE_MODE,
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new Error(`${path} is a symbolic link: obs appends only to a file of its own`);
    if (code === "ENXIO") throw new Error(`${path} is not a plain file: obs appends only to a file of its own`);
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new Error(`${path} is not a plain file: obs appends only to a file of its own`);
    const uid = ownUid();
    if (uid !== null && stats.uid !== uid) {
      throw new Error(`${path} belongs to another user (uid ${stats.uid}): obs appends only to a file of its own`);
    }
    fchmodSync(fd, PRIVATE_FILE_MODE);
    const bytes = Buffer.from(text);
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
  } finally {
    closeSync(fd);
  }
}
