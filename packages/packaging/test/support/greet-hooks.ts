/**
 * A webhook hooks file with one hook, `greet`: `/bin/sh -c <script> sh <who>`, `who` taken from the URL's query,
 * the command's output as the answer. Only /bin/sh is needed, which every place webhook runs here has.
 */
export function greetHooks(options: { script: string; workingDirectory?: string }): string {
  return JSON.stringify([
    {
      id: "greet",
      "execute-command": "/bin/sh",
      ...(options.workingDirectory === undefined
        ? {}
        : { "command-working-directory": options.workingDirectory }),
      "include-command-output-in-response": true,
      "pass-arguments-to-command": [
        { source: "string", name: "-c" },
        { source: "string", name: options.script },
        { source: "string", name: "sh" },
        { source: "url", name: "who" },
      ],
    },
  ]);
}
