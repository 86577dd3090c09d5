package crontab

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// BenchmarkScriptsOfBigBundledFiles reads the tasks of 500 scripts of
// 512 KiB each (a bundled file: its header, then a long minified body),
// as the Scripts page's preview of a pulled repository does.
func BenchmarkScriptsOfBigBundledFiles(b *testing.B) {
	body := []byte("/*\ncron: 1 7 * * *\n*/\nconst $ = new Env('签到');\n" + strings.Repeat("var a=function(){return 1};\n", 512<<10/28))
	fsys := fstest.MapFS{}
	for i := range 500 {
		fsys[fmt.Sprintf("jd_%03d.js", i)] = &fstest.MapFile{Data: body}
	}
	b.ReportAllocs()
	for b.Loop() {
		res, _, err := Scripts(fsys, "/srv/scripts", ScriptOptions{Zone: "UTC"})
		if err != nil || len(res.Entries) != 500 {
			b.Fatalf("%d entries, %v", len(res.Entries), err)
		}
	}
}
