package shariah

import "strings"

// AssetFilterMessage is the validation message of an asset-type filter that ParseAssetFilter refuses.
const AssetFilterMessage = "must be one of equities, etfs, funds, indices, all"

// ParseAssetFilter parses a search's asset-type filter: all, any or nothing is every type (""); else
// ParseAssetType's singular and plural forms. The REST database search and the MCP search_stocks tool
// both read their asset_type with it.
func ParseAssetFilter(s string) (AssetType, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "all", "any":
		return "", true
	}
	return ParseAssetType(s)
}
