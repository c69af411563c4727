// Asset-name and URL templates of a source (spec: "Source definition", `asset`): the placeholders they may use and
// how one is rendered for a platform.
import { SourceError } from "../errors.js";
import { type Platform, platformArch, platformOs } from "../platform.js";

/** Placeholders a template may use (spec: `asset`). */
export const PLACEHOLDERS = ["version", "os", "arch", "target", "commit"] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

/** The parts of a source a template is rendered with (`Source` satisfies it). */
export interface TemplateRenames {
  /** Value of `{target}` per platform. */
  readonly target: Readonly<Partial<Record<Platform, string>>>;
  /** Renames of `{os}`. */
  readonly os: Readonly<Record<string, string>>;
  /** Renames of `{arch}`. */
  readonly arch: Readonly<Record<string, string>>;
}

/** Values substituted into a template for one artifact. */
export interface TemplateValues {
  /** The version as the upstream spells it, without the tag prefix. */
  readonly version: string;
  readonly platform: Platform;
  /** The commit, for templates that use `{commit}`. */
  readonly commit?: string;
}

/**
 * Renders an asset-name or URL template of `source` for one platform.
 *
 * @throws {SourceError} when the template needs a value that is missing (`{target}` for the platform, `{commit}`)
 */
export function renderTemplate(template: string, source: TemplateRenames, values: TemplateValues): string {
  return template.replace(/\{([a-z]+)\}/g, (_, name: string) => {
    switch (name as Placeholder) {
      case "version":
        return values.version;
      case "os": {
        const os = platformOs(values.platform);
        return source.os[os] ?? os;
      }
      case "arch": {
        const arch = platformArch(values.platform);
        return source.arch[arch] ?? arch;
      }
      case "target": {
        const target = source.target[values.platform];
        if (target === undefined) {
          throw new SourceError(`Cannot render "${template}": no {target} for platform "${values.platform}"`);
        }
        return target;
      }
      case "commit":
        if (values.commit === undefined)
          throw new SourceError(`Cannot render "${template}": no commit known`);
        return values.commit;
      default:
        throw new SourceError(`Cannot render "${template}": unknown placeholder {${name}}`);
    }
  });
}

/** The placeholders a template uses. */
export function templatePlaceholders(template: string): Set<string> {
  return new Set([...template.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1] ?? ""));
}

/** The host of an `http` source's URL template (for the host policy). */
export function templateHost(template: string): string {
  return new URL(template.replace(/\{[a-z]+\}/g, "x")).hostname;
}
