// Records Go 1.19's parse trees (Tree.Root.String() of every template the text is parsed into) and its number
// constants (parse.NumberNode fields), for go-template's parse and number tests.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"text/template/parse"
)

type tree struct {
	Input string            `json:"input"`
	Trees map[string]string `json:"trees,omitempty"`
	Err   string            `json:"err,omitempty"`
}

type number struct {
	Text      string  `json:"text"`
	Err       string  `json:"err,omitempty"`
	IsInt     bool    `json:"isInt"`
	IsUint    bool    `json:"isUint"`
	IsFloat   bool    `json:"isFloat"`
	IsComplex bool    `json:"isComplex"`
	Int64     string  `json:"int64"`
	Uint64    string  `json:"uint64"`
	Float64   string  `json:"float64"`
	Real      float64 `json:"re"`
	Imag      float64 `json:"im"`
}

func getenv(string) string { return "" }

func main() {
	var in struct{ Templates, Numbers []string }
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		panic(err)
	}
	funcs := map[string]any{}
	for _, n := range []string{"and", "call", "html", "index", "slice", "js", "len", "not", "or", "print", "printf", "println", "urlquery", "eq", "ge", "gt", "le", "lt", "ne", "getenv"} {
		funcs[n] = getenv
	}
	var out struct {
		Trees   []tree   `json:"trees"`
		Numbers []number `json:"numbers"`
	}
	for _, t := range in.Templates {
		set, err := parse.Parse("hooks", t, "", "", funcs)
		r := tree{Input: t}
		if err != nil {
			r.Err = err.Error()
		} else {
			r.Trees = map[string]string{}
			names := []string{}
			for n := range set {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				r.Trees[n] = set[n].Root.String()
			}
		}
		out.Trees = append(out.Trees, r)
	}
	for _, n := range in.Numbers {
		set, err := parse.Parse("n", "{{"+n+"}}", "", "", nil)
		r := number{Text: n}
		if err != nil {
			r.Err = err.Error()
		} else {
			num := set["n"].Root.Nodes[0].(*parse.ActionNode).Pipe.Cmds[0].Args[0].(*parse.NumberNode)
			r.IsInt, r.IsUint, r.IsFloat, r.IsComplex = num.IsInt, num.IsUint, num.IsFloat, num.IsComplex
			r.Int64, r.Uint64 = fmt.Sprint(num.Int64), fmt.Sprint(num.Uint64)
			r.Float64 = fmt.Sprintf("%v", num.Float64)
			r.Real, r.Imag = real(num.Complex128), imag(num.Complex128)
		}
		out.Numbers = append(out.Numbers, r)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	enc.Encode(out)
}
