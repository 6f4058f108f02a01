package akshara_test

import (
	"fmt"

	"github.com/akshara-idn/akshara"
)

func ExampleLookup() {
	hi, err := akshara.Lookup("hi")
	if err != nil {
		panic(err)
	}
	fmt.Println(hi.Name, hi.Script, hi.K, hi.CcTLD)
	// Output: Hindi Deva 3 भारत
}

func ExampleLanguage_Check() {
	hi, _ := akshara.Lookup("hi")
	res := hi.Check("किताब")
	fmt.Println(res.Valid, res.ALabel, res.Syllables)

	res = hi.Check("क्अब")
	for _, e := range res.Errors {
		fmt.Println(e.Code, e.Pos)
	}
	// Output:
	// true xn--11b4aya5ed [कि ता ब]
	// HALANT_FOLLOWER 2
}

func ExampleLanguage_Valid() {
	hi, _ := akshara.Lookup("hi")
	for _, label := range []string{"हिंदी", "भारत।", "xn--h2brj9c", "क\u200dष"} {
		fmt.Println(label, hi.Valid(label))
	}
	// Output:
	// हिंदी true
	// भारत। false
	// xn--h2brj9c true
	// क‍ष false
}

func ExampleCheck() {
	res, err := akshara.Check("\u0958लम", "hi") // क़ written precomposed
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Valid, res.Normalized, res.ALabel)
	// Output: true true xn--11b4cl3b
}

func ExampleCode() {
	fmt.Println(akshara.IdenticalConsonants, "-", akshara.IdenticalConsonants.Summary())
	// Output: IDENTICAL_CONSONANTS - three identical consonants cannot be joined by halants
}
