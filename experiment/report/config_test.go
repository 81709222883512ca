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
// pipebench.Config, every field: each has a JSON name, only the caller's
// hooks (functions, the stop channel) are left out, and a configuration
// with every setting made comes back from the block as it was.
func TestConfigBlockIsTheConfig(t *testing.T) {
	var cfg pipebench.Config
	v := reflect.ValueOf(&cfg).Elem()
	for i := range v.NumField() {
		f, field := v.Type().Field(i), v.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch k := f.Type.Kind(); {
		case tag == "":
			t.Errorf("Config.%s has no JSON name: the record would name it as Go does, or not hold it", f.Name)
		case tag == "-" && k != reflect.Func && k != reflect.Chan:
			t.Errorf("Config.%s is a setting the record leaves out", f.Name)
		case tag == "-":
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
		case f.Type == reflect.TypeOf([]string{}):
			field.Set(reflect.ValueOf([]string{"k", "v"}))
		case f.Type == reflect.TypeOf(&pipebench.Factory{}):
			field.Set(reflect.ValueOf(&pipebench.Factory{Name: "epoll"}))
		default:
			t.Errorf("Config.%s: a %v, which this test cannot set: teach it", f.Name, f.Type)
		}
	}
	b, err := json.Marshal(report.NewConfig(&cfg, 2, 1))
	if err != nil {
		t.Fatal(err)
	}
	var back report.Config
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if !reflect.DeepEqual(back.Config, cfg) || back.Count != 2 || back.Warmup != 1 {
		t.Errorf("the config block %s reads back as %+v, want %+v", b, back, cfg)
	}
	if !strings.Contains(string(b), `"backend":"epoll"`) {
		t.Errorf("the config block %s does not name the backend by its name", b)
	}
}
