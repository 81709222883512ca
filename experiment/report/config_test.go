package report_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/pipebench/pipebench/experiment/report"
	"github.com/pipebench/pipebench/pipebench"
)

// TestConfigBlockIsTheConfig: the record's config block is
// pipebench.Config, every field of every group, flat: each setting has a
// JSON name at the top level of the block (so that records written before
// the settings were grouped still read), none is left out, and a
// configuration with every setting made comes back from the block as it
// was.
func TestConfigBlockIsTheConfig(t *testing.T) {
	var cfg pipebench.Config
	v := reflect.ValueOf(&cfg).Elem()
	var names []string
	for i := range v.NumField() {
		group := v.Type().Field(i)
		if !group.Anonymous || group.Type.Kind() != reflect.Struct {
			t.Errorf("Config.%s is not a group of settings (an embedded struct): the block would not be flat", group.Name)
			continue
		}
		for j := range group.Type.NumField() {
			f, field := group.Type.Field(j), v.Field(i).Field(j)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if tag == "" || tag == "-" {
				t.Errorf("Config.%s has no JSON name: the record would name it as Go does, or not hold it", f.Name)
				continue
			}
			names = append(names, tag)
			setting(t, f, field)
		}
	}
	b, err := json.Marshal(report.NewConfig(&cfg, 2))
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if _, ok := top[n]; !ok {
			t.Errorf("the config block %s has no %q at its top level", b, n)
		}
	}
	if len(top) != len(names)+1 { // and count
		t.Errorf("the config block has %d keys, want the %d settings and count: %s", len(top), len(names), b)
	}
	var back report.Config
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if !reflect.DeepEqual(back.Config, cfg) || back.Count != 2 {
		t.Errorf("the config block %s reads back as %+v, want %+v", b, back, cfg)
	}
	if !strings.Contains(string(b), `"backend":"epoll"`) {
		t.Errorf("the config block %s does not name the backend by its name", b)
	}
}

// setting sets field, the setting f, to a value other than its zero.
func setting(t *testing.T, f reflect.StructField, field reflect.Value) {
	switch k := f.Type.Kind(); {
	case k == reflect.Int, k == reflect.Int64: // counts, modes, durations
		field.SetInt(1)
	case k == reflect.Uint64:
		field.SetUint(7)
	case k == reflect.Float64:
		field.SetFloat(1.5e6)
	case k == reflect.Bool:
		field.SetBool(true)
	case f.Type == reflect.TypeOf([]int{}):
		field.Set(reflect.ValueOf([]int{0, 1}))
	case f.Type == reflect.TypeOf(&pipebench.Factory{}):
		field.Set(reflect.ValueOf(&pipebench.Factory{Name: "epoll"}))
	default:
		t.Errorf("Config.%s: a %v, which this test cannot set: teach it", f.Name, f.Type)
	}
}
