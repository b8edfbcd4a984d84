// Command echoargs stands in for an image's entrypoint in the tests of
// package k8stest: it prints, as one JSON object on standard output, its
// arguments, the environment variables whose names it is given in
// ECHOARGS_ENV (comma-separated; all when ECHOARGS_ENV is "*"), its
// working directory, and the content of every file named by an argument
// --read=PATH. An argument --write=PATH writes "written by echoargs" to
// PATH first; --exit=N exits with N after printing.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
)

type report struct {
	Args  []string          `json:"args"`
	Env   map[string]string `json:"env"`
	Dir   string            `json:"dir"`
	Files map[string]string `json:"files"`
}

func main() {
	r := report{Args: os.Args[1:], Env: map[string]string{}, Files: map[string]string{}}
	r.Dir, _ = os.Getwd()
	names := os.Getenv("ECHOARGS_ENV")
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if names == "*" || strings.Contains(","+names+",", ","+k+",") {
			r.Env[k] = v
		}
	}
	code := 0
	for _, a := range os.Args[1:] {
		switch {
		case strings.HasPrefix(a, "--write="):
			p := strings.TrimPrefix(a, "--write=")
			if err := os.WriteFile(p, []byte("written by echoargs"), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "echoargs:", err)
				os.Exit(2)
			}
		case strings.HasPrefix(a, "--exit="):
			n, err := strconv.Atoi(strings.TrimPrefix(a, "--exit="))
			if err != nil {
				fmt.Fprintln(os.Stderr, "echoargs:", err)
				os.Exit(2)
			}
			code = n
		}
	}
	for _, a := range os.Args[1:] {
		if p, ok := strings.CutPrefix(a, "--read="); ok {
			b, err := os.ReadFile(p)
			if err != nil {
				fmt.Fprintln(os.Stderr, "echoargs:", err)
				os.Exit(2)
			}
			r.Files[p] = string(b)
		}
	}
	out, err := json.Marshal(r)
	if err != nil {
		fmt.Fprintln(os.Stderr, "echoargs:", err)
		os.Exit(2)
	}
	fmt.Println(string(out))
	fmt.Fprintln(os.Stderr, "echoargs: done")
	os.Exit(code)
}
