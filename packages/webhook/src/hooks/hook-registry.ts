import { basename, dirname, join } from "node:path";
import { DuplicateHookError, HooksFileError } from "../errors.js";
import type { Hook } from "./hook.js";

/** What the registry needs: a file loader, the log, and (for `-hotreload`) a directory watcher. */
export interface HookRegistryDeps {
  readonly load: (file: string) => Promise<Hook[]>;
  readonly log: (line: string) => void;
  /** Told when a reload fails and the file's previous hooks stay (the `-metrics` count). */
  readonly onReloadFailure?: () => void;
  /** Told when a file's removal left no hook served (upstream's removeHooks then ends webhook, unless told not to). */
  readonly onNoHooksLeft?: () => void;
}

/**
 * The hooks served, per hooks file, as upstream's `loadedHooksFromFiles` (webhook.go). Upstream has two rules for
 * an id served twice, and so does this:
 * - at start-up (`loadAll`, upstream's loop in `main`), an id already served by an *earlier file* is fatal, while an
 *   id repeated *within one file* is not noticed: the first of them is served;
 * - on reload (`reload`, upstream's `reloadHooks`), an id served by another file, or repeated within the file, makes
 *   the whole file refused and its previous hooks stay.
 * 2.8.0 behaves so (checked side by side in test/peer-parity.peers.test.ts).
 */
export class HookRegistry {
  readonly #deps: HookRegistryDeps;
  readonly #byFile = new Map<string, Hook[]>();
  /** Upstream's `hooksFiles`: the paths as given, a path given twice listed twice, once its file loaded. */
  #files: string[] = [];
  #index = new Map<string, Hook>();

  constructor(deps: HookRegistryDeps) {
    this.#deps = deps;
  }

  /** The hooks served now, by id (the first of a repeated id). */
  hooks(): ReadonlyMap<string, Hook> {
    return this.#index;
  }

  /** The files whose hooks are served, in the order given (a path given twice is there twice, as upstream's). */
  files(): string[] {
    return [...this.#files];
  }

  /**
   * Loads every file at start-up; a file that cannot be loaded is logged and left out.
   *
   * @throws {DuplicateHookError} when a file serves an id an earlier file already serves
   */
  async loadAll(files: readonly string[]): Promise<void> {
    const { log } = this.#deps;
    for (const file of files) {
      log(`attempting to load hooks from ${file}`);
      let hooks: Hook[];
      try {
        hooks = await this.#deps.load(file);
      } catch (error) {
        if (!(error instanceof HooksFileError)) throw error;
        log(`couldn't load hooks from file! ${error.message}`);
        continue;
      }
      log(`found ${hooks.length} hook(s) in file`);
      for (const hook of hooks) {
        // Only earlier files count: upstream looks the id up before this file is added.
        if (this.#servedBy(hook.id) !== undefined) throw new DuplicateHookError(hook.id);
        log(`\tloaded: ${hook.id}`);
      }
      this.#byFile.set(file, hooks);
    }
    this.#files = files.filter((file) => this.#byFile.has(file));
    this.#reindex();
  }

  /** Reloads one file (SIGHUP, SIGUSR1, `-hotreload`); on any failure the file's previous hooks stay. */
  async reload(file: string): Promise<void> {
    const { log } = this.#deps;
    log(`attempting to reload hooks from ${file}`);
    let fresh: Hook[];
    try {
      fresh = await this.#deps.load(file);
    } catch (error) {
      log(`couldn't load hooks from file! ${(error as Error).message}`);
      this.#deps.onReloadFailure?.();
      return;
    }
    log(`found ${fresh.length} hook(s) in file`);
    const seen = new Set<string>();
    for (const hook of fresh) {
      const owner = this.#servedBy(hook.id);
      if ((owner !== undefined && owner !== file) || seen.has(hook.id)) {
        log(new DuplicateHookError(hook.id).message);
        log("reverting hooks back to the previous configuration");
        this.#deps.onReloadFailure?.();
        return;
      }
      seen.add(hook.id);
      log(`\tloaded: ${hook.id}`);
    }
    this.#byFile.set(file, fresh);
    // A file removed and created again (ours watches its directory) is reloaded on signals again.
    if (!this.#files.includes(file)) this.#files.push(file);
    this.#reindex();
  }

  /** Reloads every file, one after the other (upstream's `reloadAllHooks`), so log lines do not interleave. */
  async reloadAll(): Promise<void> {
    for (const file of this.files()) await this.reload(file);
  }

  /** Stops serving a file's hooks (its file is gone). */
  remove(file: string): void {
    const removed = this.#byFile.get(file) ?? [];
    for (const hook of removed) this.#deps.log(`\tremoving: ${hook.id}`);
    this.#byFile.delete(file);
    this.#files = this.#files.filter((f) => f !== file);
    this.#reindex();
    this.#deps.log(`removed ${removed.length} hook(s) that were loaded from file ${file}`);
    if (this.#index.size === 0) this.#deps.onNoHooksLeft?.();
  }

  /**
   * `-hotreload`: a change reloads the file, its removal stops serving its hooks. The directory is watched, not the
   * file, so an atomic replace by rename is caught too (upstream's fsnotify watch on the file misses it).
   */
  watch(deps: {
    readonly watch: (dir: string, onChange: (file: string) => void) => void;
    readonly exists: (path: string) => Promise<boolean>;
    /** The path with every symbolic link resolved (fs.realpath). */
    readonly realpath?: (path: string) => Promise<string>;
  }): void {
    const { log } = this.#deps;
    const watched = new Set<string>();
    for (const file of this.files()) {
      log(`setting up file watcher for ${file}`);
      // fsnotify watches a path once, however often it is added.
      if (watched.has(file)) continue;
      watched.add(file);
      const changed = () =>
        void (async () => {
          if (await deps.exists(file)) {
            log(`hooks file ${file} modified`);
            await this.reload(file);
          } else if (this.#byFile.has(file)) {
            log(
              `hooks file ${file} removed, no longer watching this file for changes, removing hooks that were loaded from it`,
            );
            this.remove(file);
          }
        })();
      deps.watch(dirname(file), (name) => {
        if (name === basename(file)) changed();
      });
      // fsnotify's inotify watch follows a symbolic link to the file it names: an edit of that file reloads too.
      const { realpath } = deps;
      if (realpath !== undefined)
        void Promise.all([realpath(file), realpath(dirname(file))]).then(
          ([real, dir]) => {
            if (real === join(dir, basename(file))) return;
            deps.watch(dirname(real), (name) => {
              if (name === basename(real)) changed();
            });
          },
          () => undefined,
        );
    }
  }

  #servedBy(id: string): string | undefined {
    for (const [file, hooks] of this.#byFile) if (hooks.some((h) => h.id === id)) return file;
    return undefined;
  }

  #reindex(): void {
    const index = new Map<string, Hook>();
    for (const hooks of this.#byFile.values())
      for (const hook of hooks) if (!index.has(hook.id)) index.set(hook.id, hook);
    this.#index = index;
  }
}
