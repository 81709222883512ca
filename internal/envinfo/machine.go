package envinfo

import (
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

// readMachine fills what the kernel says of the machine beyond the CPU
// model: its command line, the CPU frequency driver and governor, the
// cpuidle driver and governor, SMT, NUMA nodes, the hypervisor and the
// load when the environment was read. What the kernel does not expose is
// said in e.Missing, never left silently empty.
func (e *Environment) readMachine(root fs.FS) {
	missing := func(format string, a ...any) { e.Missing = append(e.Missing, fmt.Sprintf(format, a...)) }
	if b, err := fs.ReadFile(root, "proc/cmdline"); err == nil {
		// What follows " -- " is for init, not the kernel.
		kernel, _, _ := strings.Cut(strings.TrimSpace(string(b)), " -- ")
		e.KernelCmdline = strings.TrimSpace(kernel)
	} else {
		missing("kernel command line: %v", err)
	}
	const freq = "sys/devices/system/cpu/cpu0/cpufreq/"
	if d, err := readLine(root, freq+"scaling_driver"); err == nil {
		e.CPUFreqDriver = d
		e.CPUFreqGovernor, _ = readLine(root, freq+"scaling_governor")
	} else {
		missing("cpu frequency driver and governor: not exposed (%v)", err)
	}
	const idle = "sys/devices/system/cpu/cpuidle/"
	if d, err := readLine(root, idle+"current_driver"); err == nil {
		e.CPUIdleDriver = d
		// current_governor_ro is the older kernels' name of the file.
		if g, err := readLine(root, idle+"current_governor"); err == nil {
			e.CPUIdleGovernor = g
		} else {
			e.CPUIdleGovernor, _ = readLine(root, idle+"current_governor_ro")
		}
	} else {
		missing("cpuidle driver and governor: not exposed (%v)", err)
	}
	if s, err := readLine(root, "sys/devices/system/cpu/smt/control"); err == nil {
		e.SMT = s
		if s == "on" || s == "off" || s == "forceoff" {
			if a, err := readLine(root, "sys/devices/system/cpu/smt/active"); err == nil && a == "0" && s == "on" {
				e.SMT = "on, inactive"
			}
		}
	} else {
		missing("smt: %v", err)
	}
	if ents, err := fs.ReadDir(root, "sys/devices/system/node"); err == nil {
		for _, ent := range ents {
			if n := strings.TrimPrefix(ent.Name(), "node"); n != ent.Name() {
				if _, err := strconv.Atoi(n); err == nil {
					e.NUMANodes++
				}
			}
		}
	} else {
		missing("numa nodes: %v", err)
	}
	e.Hypervisor = hypervisor(root)
	if e.Hypervisor == "" {
		missing("hypervisor: none detectable")
	}
	if b, err := fs.ReadFile(root, "proc/loadavg"); err == nil {
		f := strings.Fields(string(b))
		for i := 0; i < 3 && i < len(f); i++ {
			e.LoadAverage[i], _ = strconv.ParseFloat(f[i], 64)
		}
	} else {
		missing("load average: %v", err)
	}
}

// hypervisor names the hypervisor where the kernel exposes it (Xen's
// /sys/hypervisor, the firmware's DMI vendor and product), "present,
// vendor not exposed" where only the CPU's hypervisor flag says one runs
// below, and "" where nothing says.
func hypervisor(root fs.FS) string {
	if t, err := readLine(root, "sys/hypervisor/type"); err == nil && t != "" {
		return t
	}
	vendor, _ := readLine(root, "sys/class/dmi/id/sys_vendor")
	product, _ := readLine(root, "sys/class/dmi/id/product_name")
	if info, err := cpuinfo(root); err == nil && hasFlag(info, "hypervisor") {
		if v := strings.TrimSpace(vendor + " " + product); v != "" {
			return v
		}
		return "present, vendor not exposed"
	}
	return ""
}

// hasFlag says whether cpuinfo's first flags line lists flag.
func hasFlag(info map[string]string, flag string) bool {
	return slices.Contains(strings.Fields(info["flags"]), flag)
}

func readLine(root fs.FS, name string) (string, error) {
	b, err := fs.ReadFile(root, name)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}
