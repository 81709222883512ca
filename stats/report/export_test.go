package report

// For the external tests (invariants_test.go), which use reporttest: it
// imports this package.
var (
	Fixture    = fixture
	FixtureDoc = fixtureDoc
	Render     = render
)
