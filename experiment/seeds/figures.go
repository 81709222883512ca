package seeds

// Figure is one number a seed published, and where it is: the file under
// testdata/ that transcribes it and the seed's lines.
type Figure struct {
	Value float64
	// File is the testdata/ file holding it; Where says which seed, which
	// lines, and which cell.
	File, Where string
}

// The seeds' figures. Each is checked against its testdata/ file by
// figures_test.go.
var (
	// Seed 001 (epoll_pipe_bench, 2006): medians of each run's per-second
	// lines (testdata/epoll_pipe_bench-2006.csv).
	epb1000l1   = Figure{228191, "epoll_pipe_bench-2006.csv", "seed 001 lines 36-45: -n 1000 -l 1, median evts/sec"}
	epb1000l10  = Figure{343546.5, "epoll_pipe_bench-2006.csv", "seed 001 lines 49-58: -n 1000 -l 10, median evts/sec"}
	epb10000l1  = Figure{174266, "epoll_pipe_bench-2006.csv", "seed 001 lines 97-102: -n 10000 -l 1, median evts/sec"}
	epb10000l10 = Figure{151048.5, "epoll_pipe_bench-2006.csv", "seed 001 lines 106-111: -n 10000 -l 10, median evts/sec"}
	epbBypass   = Figure{266196.5, "epoll_pipe_bench-2006.csv", "seed 001 lines 139-146: -n 10000 -f, median evts/sec"}
	// pipe_poll's share of the oprofile samples
	// (testdata/epoll_pipe_bench-2006-oprofile.csv).
	pipePoll1000  = Figure{3.4728, "epoll_pipe_bench-2006-oprofile.csv", "seed 001 line 78: pipe_poll, % of samples, table after -n 1000 -l 10"}
	pipePoll10000 = Figure{12.4647, "epoll_pipe_bench-2006-oprofile.csv", "seed 001 line 117: pipe_poll, % of samples, table after -n 10000 -l 10"}

	// Seed 004 (pipetest, 2002): token passes per second, sys_epoll 0.14
	// and poll() (testdata/pipetest-2002.csv).
	pipetestPipes = []int{10, 100, 1000, 5000, 10000}
	pipetestEpoll = map[int]Figure{
		10:    {285510, "pipetest-2002.csv", "seed 004 line 360: 10 pipes, sys_epoll 0.14"},
		100:   {283948, "pipetest-2002.csv", "seed 004 line 361: 100 pipes, sys_epoll 0.14"},
		1000:  {279754, "pipetest-2002.csv", "seed 004 line 363: 1000 pipes, sys_epoll 0.14"},
		5000:  {273741, "pipetest-2002.csv", "seed 004 line 367: 5000 pipes, sys_epoll 0.14"},
		10000: {272780, "pipetest-2002.csv", "seed 004 line 372: 10000 pipes, sys_epoll 0.14"},
	}
	pipetestPoll = map[int]Figure{
		10:    {98469, "pipetest-2002.csv", "seed 004 line 360: 10 pipes, poll()"},
		100:   {16514, "pipetest-2002.csv", "seed 004 line 361: 100 pipes, poll()"},
		1000:  {1667, "pipetest-2002.csv", "seed 004 line 363: 1000 pipes, poll()"},
		5000:  {295, "pipetest-2002.csv", "seed 004 line 367: 5000 pipes, poll()"},
		10000: {86, "pipetest-2002.csv", "seed 004 line 372: 10000 pipes, poll()"},
	}

	// Seed 000 (EPOLLEXCLUSIVE, 2015): bankcl's times for the same work
	// (testdata/herd-2015.csv).
	herdRealOff = Figure{860.561, "herd-2015.csv", "seed 000 line 27: real, exclusive off (14m20.561s)"}
	herdRealOn  = Figure{24.953, "herd-2015.csv", "seed 000 line 33: real, exclusive on"}
	herdSysOff  = Figure{649.821, "herd-2015.csv", "seed 000 line 29: sys, exclusive off (10m49.821s)"}
	herdSysOn   = Figure{4.445, "herd-2015.csv", "seed 000 line 35: sys, exclusive on"}

	// Seed 002 (epoll min-wait, 2022): the ranges' middles
	// (testdata/minwait-2022.csv).
	minwaitSleepInvol = Figure{325000, "minwait-2022.csv", "seed 002 line 1: sleep hack, 310K-340K non-voluntary cs/s (middle)"}
	minwaitKernInvol  = Figure{303500, "minwait-2022.csv", "seed 002 line 1: min-wait, 292K-315K non-voluntary cs/s (middle)"}
	minwaitSleepIdle  = Figure{30.5, "minwait-2022.csv", "seed 002 line 1: sleep hack, idle CPU 27-34% (middle)"}
	minwaitKernIdle   = Figure{37, "minwait-2022.csv", "seed 002 line 1: min-wait, idle CPU 33-41% (middle)"}

	// Seed 003 (epoll_pwait1, 2015): QEMU's latency overhead in µs against
	// the descriptors polled (testdata/epoll_pwait1-2015.csv); the epoll
	// figures are with the proposed epoll_pwait1.
	qemuFDs   = []int{15, 85, 200} // the middles of 10~20, 80~90, ~200
	qemuPpoll = map[int]Figure{
		15:  {37, "epoll_pwait1-2015.csv", "seed 003 line 42: t1, 10~20 fds, ppoll"},
		85:  {49, "epoll_pwait1-2015.csv", "seed 003 line 45: t2, 80~90 fds, ppoll"},
		200: {83, "epoll_pwait1-2015.csv", "seed 003 line 46: t3, ~200 fds, ppoll"},
	}
	qemuEpoll = map[int]Figure{
		15:  {36, "epoll_pwait1-2015.csv", "seed 003 line 48: t1, epoll_pwait1"},
		85:  {37, "epoll_pwait1-2015.csv", "seed 003 line 48: t2, epoll_pwait1"},
		200: {47, "epoll_pwait1-2015.csv", "seed 003 line 48: t3, epoll_pwait1"},
	}
)
