// The parse tree of Go's text/template (Go 1.19 text/template/parse/node.go) and each node's String(), which Go's
// execution errors print as their context (`executing "hooks" at <printf "%d" "x">`). Strings are byte strings.
import { fromBytes } from "./go-text.js";
import { quote } from "./strconv.js";

interface At {
  /** Byte offset in the template text. */
  readonly pos: number;
}

export interface TextNode extends At {
  readonly type: "text";
  readonly text: string;
}
export interface CommentNode extends At {
  readonly type: "comment";
  readonly text: string;
}
export interface ActionNode extends At {
  readonly type: "action";
  readonly line: number;
  readonly pipe: PipeNode;
}
export interface PipeNode extends At {
  readonly type: "pipe";
  readonly line: number;
  isAssign: boolean;
  readonly decl: VariableNode[];
  readonly cmds: CommandNode[];
}
export interface CommandNode extends At {
  readonly type: "command";
  readonly args: Node[];
}
export interface IdentifierNode extends At {
  readonly type: "identifier";
  readonly ident: string;
}
export interface VariableNode extends At {
  readonly type: "variable";
  /** The name (`$x`) and the fields after it. */
  readonly ident: readonly string[];
}
export interface DotNode extends At {
  readonly type: "dot";
}
export interface NilNode extends At {
  readonly type: "nil";
}
export interface FieldNode extends At {
  readonly type: "field";
  readonly ident: readonly string[];
}
export interface ChainNode extends At {
  readonly type: "chain";
  readonly node: Node;
  readonly field: string[];
}
export interface BoolNode extends At {
  readonly type: "bool";
  readonly value: boolean;
}
export interface NumberNode extends At {
  readonly type: "number";
  readonly isInt: boolean;
  readonly isUint: boolean;
  readonly isFloat: boolean;
  readonly isComplex: boolean;
  readonly int64: bigint;
  readonly uint64: bigint;
  readonly float64: number;
  readonly complex: { readonly re: number; readonly im: number };
  readonly text: string;
}
export interface StringNode extends At {
  readonly type: "string";
  readonly quoted: string;
  readonly text: string;
}
export interface ListNode extends At {
  readonly type: "list";
  readonly nodes: Node[];
}
/** `if`, `range` and `with`. */
export interface BranchNode extends At {
  readonly type: "if" | "range" | "with";
  readonly line: number;
  readonly pipe: PipeNode;
  readonly list: ListNode;
  readonly elseList: ListNode | undefined;
}
export interface TemplateNode extends At {
  readonly type: "template";
  readonly line: number;
  readonly name: string;
  readonly pipe: PipeNode | undefined;
}
export interface BreakNode extends At {
  readonly type: "break";
}
export interface ContinueNode extends At {
  readonly type: "continue";
}
/** `{{else}}` and `{{end}}`: returned by the parser's item lists, never left in a tree. */
export interface ElseNode extends At {
  readonly type: "else";
  readonly line: number;
}
export interface EndNode extends At {
  readonly type: "end";
}

export type Node =
  | TextNode
  | CommentNode
  | ActionNode
  | PipeNode
  | CommandNode
  | IdentifierNode
  | VariableNode
  | DotNode
  | NilNode
  | FieldNode
  | ChainNode
  | BoolNode
  | NumberNode
  | StringNode
  | ListNode
  | BranchNode
  | TemplateNode
  | BreakNode
  | ContinueNode
  | ElseNode
  | EndNode;

/** A named template: its name and body. */
export interface Tree {
  readonly name: string;
  readonly root: ListNode;
}

/** Go's `n.String()`. */
export function nodeString(n: Node): string {
  switch (n.type) {
    case "text":
      return n.text;
    case "comment":
      return `{{${n.text}}}`;
    case "action":
      return `{{${nodeString(n.pipe)}}}`;
    case "pipe": {
      const decl = n.decl.length > 0 ? `${n.decl.map(nodeString).join(", ")} := ` : "";
      return decl + n.cmds.map(nodeString).join(" | ");
    }
    case "command":
      return n.args.map((a) => (a.type === "pipe" ? `(${nodeString(a)})` : nodeString(a))).join(" ");
    case "identifier":
      return n.ident;
    case "variable":
      return n.ident.join(".");
    case "dot":
      return ".";
    case "nil":
      return "nil";
    case "field":
      return n.ident.map((id) => `.${id}`).join("");
    case "chain": {
      const head = n.node.type === "pipe" ? `(${nodeString(n.node)})` : nodeString(n.node);
      return head + n.field.map((f) => `.${f}`).join("");
    }
    case "bool":
      return n.value ? "true" : "false";
    case "number":
      return n.text;
    case "string":
      return n.quoted;
    case "list":
      return n.nodes.map(nodeString).join("");
    case "if":
    case "range":
    case "with": {
      const elseText = n.elseList === undefined ? "" : `{{else}}${nodeString(n.elseList)}`;
      return `{{${n.type} ${nodeString(n.pipe)}}}${nodeString(n.list)}${elseText}{{end}}`;
    }
    case "template":
      return `{{template ${quote(n.name)}${n.pipe === undefined ? "" : ` ${nodeString(n.pipe)}`}}}`;
    case "break":
      return "{{break}}";
    case "continue":
      return "{{continue}}";
    case "else":
      return "{{else}}";
    case "end":
      return "{{end}}";
  }
}

// unicode.IsSpace, which bytes.TrimSpace trims (JS's \s also holds U+FEFF, which Go's does not).
const UNICODE_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/g;

/** parse.IsEmptyTree: only comments and white space. */
export const isEmptyTree = (n: Node | undefined): boolean => {
  if (n === undefined) return true;
  switch (n.type) {
    case "comment":
      return true;
    case "list":
      return n.nodes.every(isEmptyTree);
    case "text":
      return fromBytes(n.text).replace(UNICODE_SPACE, "") === "";
    default:
      return false;
  }
};
