// The Go side of tests/golang/test_golang_differential.py: reads one JSON case per line,
// {"op": "...", "in": "...", "arg": "..."}, and writes one JSON answer per line with what the
// standard library says. Standard library only, so it builds off-network; `go 1.19` in go.mod so
// that old toolchains build it too, which also selects Go 1.19's GODEBUG defaults: the test sets
// the settings that matter in the GODEBUG environment variable instead.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

type request struct {
	Op  string `json:"op"`
	In  string `json:"in"`
	Arg string `json:"arg"`
}

type answer map[string]interface{}

func errText(err error) interface{} {
	if err == nil {
		return nil
	}
	return err.Error()
}

func urlAnswer(u *url.URL, err error) answer {
	if err != nil {
		return answer{"err": err.Error()}
	}
	user := interface{}(nil)
	if u.User != nil {
		user = u.User.String()
	}
	return answer{
		"scheme": u.Scheme, "opaque": u.Opaque, "user": user, "host": u.Host,
		"hostname": u.Hostname(), "port": u.Port(), "path": u.Path, "raw_path": u.RawPath,
		"escaped_path": u.EscapedPath(), "raw_query": u.RawQuery, "query": u.Query(),
		"fragment": u.Fragment, "string": u.String(),
	}
}

func run(r request) (a answer) {
	defer func() {
		if p := recover(); p != nil {
			a = answer{"panic": fmt.Sprint(p)}
		}
	}()
	switch r.Op {
	case "quote":
		return answer{"out": strconv.Quote(r.In)}
	case "json_string":
		b, _ := json.Marshal(r.In)
		return answer{"out": string(b)}
	case "json_float":
		f, err := strconv.ParseFloat(r.In, 64)
		if err != nil {
			return answer{"err": err.Error()}
		}
		b, err := json.Marshal(f)
		if err != nil {
			return answer{"err": err.Error()}
		}
		return answer{"out": string(b)}
	case "fmt_g":
		f, _ := strconv.ParseFloat(r.In, 64)
		return answer{"out": fmt.Sprintf("%g", f)}
	case "fmt_f":
		f, _ := strconv.ParseFloat(r.In, 64)
		p, _ := strconv.Atoi(r.Arg)
		return answer{"out": fmt.Sprintf("%.*f", p, f)}
	case "fmt_e":
		f, _ := strconv.ParseFloat(r.In, 64)
		w, _ := strconv.Atoi(r.Arg)
		return answer{"out": fmt.Sprintf("%*e", w, f)}
	case "parse_int":
		n, err := strconv.ParseInt(r.In, 0, 64)
		if err != nil {
			return answer{"err": "*"}
		}
		return answer{"out": strconv.FormatInt(n, 10)}
	case "parse_uint":
		n, err := strconv.ParseUint(r.In, 0, 64)
		if err != nil {
			return answer{"err": "*"}
		}
		return answer{"out": strconv.FormatUint(n, 10)}
	case "parse_bool":
		b, err := strconv.ParseBool(r.In)
		if err != nil {
			return answer{"err": "*"}
		}
		return answer{"out": strconv.FormatBool(b)}
	case "parse_float":
		f, err := strconv.ParseFloat(r.In, 64)
		if err != nil {
			return answer{"err": "*"}
		}
		return answer{"out": strconv.FormatFloat(f, 'g', -1, 64)}
	case "trim_space":
		return answer{"out": strings.TrimSpace(r.In)}
	case "rfc3339":
		t, err := time.Parse(time.RFC3339, r.In)
		if err != nil {
			return answer{"err": err.Error()}
		}
		_, offset := t.Zone()
		return answer{"unix": t.Unix(), "nanos": t.Nanosecond(), "offset": offset,
			"format": t.Format(time.RFC3339Nano)}
	case "duration":
		d, err := time.ParseDuration(r.In)
		if err != nil {
			return answer{"err": err.Error()}
		}
		return answer{"nanos": strconv.FormatInt(int64(d), 10), "string": d.String(),
			"seconds": strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"}
	case "duration_string":
		n, _ := strconv.ParseInt(r.In, 10, 64)
		d := time.Duration(n)
		return answer{"string": d.String(), "seconds": strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"}
	case "regexp":
		re, err := regexp.Compile(r.In)
		if err != nil {
			return answer{"err": err.Error()}
		}
		return answer{"match": re.MatchString(r.Arg), "find": re.FindString(r.Arg),
			"all": re.FindAllString(r.Arg, -1)}
	case "url_request":
		return urlAnswer(url.ParseRequestURI(r.In))
	case "url":
		return urlAnswer(url.Parse(r.In))
	case "query_size":
		// URL.Query, as Kubernetes' getQuery() calls it: errors ignored.
		return answer{"size": len((&url.URL{RawQuery: r.In}).Query())}
	case "addr":
		a, err := netip.ParseAddr(r.In)
		if err != nil {
			return answer{"err": err.Error()}
		}
		return answer{"string": a.String(), "zone": a.Zone(), "is4in6": a.Is4In6()}
	case "prefix":
		p, err := netip.ParsePrefix(r.In)
		if err != nil {
			return answer{"err": err.Error()}
		}
		return answer{"addr": p.Addr().String(), "bits": p.Bits()}
	}
	return answer{"err": "unknown op " + r.Op}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for in.Scan() {
		var r request
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			enc.Encode(answer{"err": "bad request: " + err.Error()})
			continue
		}
		enc.Encode(run(r))
	}
}
