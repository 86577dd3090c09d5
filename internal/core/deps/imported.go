package deps

import "context"

// DependencyImport declares the packages of pkgs not declared already
// with the same specifier, and returns those it declared: nothing is
// installed, so importing the same list again declares nothing.
func (s *Service) DependencyImport(ctx context.Context, actor string, pkgs []Package) ([]Package, error) {
	list, err := s.Store.DependencyList(ctx)
	if err != nil {
		return nil, err
	}
	have := map[Package]bool{}
	for _, d := range list {
		have[d.Package] = true
	}
	var news []Package
	for _, p := range pkgs {
		if !have[p] {
			news = append(news, p)
		}
	}
	if len(news) == 0 {
		return nil, nil
	}
	return news, s.Store.DependencyDeclare(ctx, actor, news)
}
