package console

import (
	"mime/multipart"
	"path"
	"strings"

	"github.com/qinglong/qinglong/internal/core/scripts"
)

// multipartFile is one file of an upload.
type multipartFile struct{ *multipart.FileHeader }

// name is the file's name as the browser sent it, without any folder a
// browser of another system put before it.
func (f *multipartFile) name() string {
	return path.Base(strings.ReplaceAll(f.Filename, `\`, "/"))
}

// check refuses the file before any of the upload is written: a name the
// folder refuses, one over the limit, or one there already unless
// replace.
func (f *multipartFile) check(folder *scripts.Folder, dir string, replace bool) error {
	name, err := scripts.Name(f.name())
	if err != nil {
		return err
	}
	p := scripts.Join(dir, name)
	if f.Size > scripts.MaxUpload {
		return scripts.TooLarge(p, f.Size, scripts.MaxUpload)
	}
	if replace {
		return nil
	}
	return folder.Absent(p)
}

// put writes the file into dir.
func (f *multipartFile) put(folder *scripts.Folder, dir string, replace bool) (scripts.Saved, error) {
	in, err := f.Open()
	if err != nil {
		return scripts.Saved{}, err
	}
	defer in.Close() //nolint:errcheck // read only
	return folder.Put(scripts.Join(dir, f.name()), in, replace, scripts.MaxUpload)
}
