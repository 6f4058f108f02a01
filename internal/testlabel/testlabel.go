// Package testlabel makes distinct valid labels for tests and benchmarks.
// It depends on nothing of the project, so that every package's own tests
// can use it (registrytest, which imports the stores, cannot be imported
// by the stores' internal tests).
package testlabel

// Hindi returns the i-th of distinct valid Hindi labels: three aksharas
// of consonants and matras for the first 1,562,500, then more (none with a
// variant).
func Hindi(i int) string {
	cons := []rune("कखगघचछजझटठडढणनपफबभमयरलवसह")
	mats := []string{"", "ा", "ि", "ी", "ु", "ू", "े", "ै", "ो", "ौ"}
	var b []rune
	for k := 0; k < 3; k++ {
		b = append(b, cons[i%len(cons)])
		i /= len(cons)
		if k < 2 {
			b = append(b, []rune(mats[i%len(mats)])...)
			i /= len(mats)
		}
	}
	// Past the 1,562,500 labels of three syllables (25³ × 10²), a
	// syllable more for what is left of i, so that every i has a label of
	// its own: before, the labels came round again, and a generated
	// import file of 10 million records held only 1.9 million distinct
	// names. The labels below that number are unchanged.
	for i > 0 {
		b = append(b, []rune(mats[i%len(mats)])...)
		i /= len(mats)
		b = append(b, cons[i%len(cons)])
		i /= len(cons)
	}
	return string(b)
}
