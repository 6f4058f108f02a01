// Package testlabel makes distinct valid labels for tests and benchmarks.
// It depends on nothing of the project, so that every package's own tests
// can use it (registrytest, which imports the stores, cannot be imported
// by the stores' internal tests).
package testlabel

// Hindi returns the i-th of 1,562,500 distinct valid Hindi labels (three
// aksharas of consonants and matras, none with a variant).
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
	return string(b)
}
