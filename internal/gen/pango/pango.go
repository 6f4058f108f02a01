// Package pango renders text with pango-view (Debian's pango1.0-tools, in
// the system's fonts: fonts-indic for the Indic scripts) and finds its ink,
// for the generators that compare renderings (internal/gen/homoglyphs,
// internal/gen/identical).
package pango

import (
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
)

// Ink is a rendering: its image and the bounding box of its dark pixels.
type Ink struct {
	Img image.Image
	Box image.Rectangle
}

// Dark reports whether the pixel at (x, y) is ink (darker than mid-grey).
func (in *Ink) Dark(x, y int) bool {
	r, g, b, _ := in.Img.At(x, y).RGBA()
	return (r+g+b)/3 < 0x8000
}

// Render renders s in font (a pango font description such as "Sans 64")
// with margin pixels around it. It returns nil and no error when the
// rendering has no ink, and an error when pango-view fails.
func Render(s, font string, margin int) (*Ink, error) {
	f, err := os.CreateTemp("", "pango-*.png")
	if err != nil {
		return nil, err
	}
	f.Close()
	defer os.Remove(f.Name())
	cmd := exec.Command("pango-view", "-q", "--font="+font, fmt.Sprintf("--margin=%d", margin), "-t", s, "-o", f.Name())
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("pango-view %q: %v", s, err)
	}
	r, err := os.Open(f.Name())
	if err != nil {
		return nil, err
	}
	defer r.Close()
	img, err := png.Decode(r)
	if err != nil {
		return nil, err
	}
	in := &Ink{Img: img}
	bb := img.Bounds()
	box := image.Rectangle{Min: image.Point{bb.Max.X, bb.Max.Y}}
	for y := bb.Min.Y; y < bb.Max.Y; y++ {
		for x := bb.Min.X; x < bb.Max.X; x++ {
			if in.Dark(x, y) {
				box.Min.X, box.Min.Y = min(box.Min.X, x), min(box.Min.Y, y)
				box.Max.X, box.Max.Y = max(box.Max.X, x+1), max(box.Max.Y, y+1)
			}
		}
	}
	if box.Empty() {
		return nil, nil
	}
	in.Box = box
	return in, nil
}
