package dataformat

import (
	"strings"
	"testing"
)

// DynamoDB's ION export: one {Item:{...}} a line, numbers as decimals,
// binaries as blobs, sets as annotated lists. See "Amazon Ion" in
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataExport.Output.html
func TestDecodeIon(t *testing.T) {
	src := strings.Join([]string{
		`$ion_1_0 {Item:{pk:"a\u00e9\x21",n:1.50,i:-12,f:1.5e3,d:2.5d-1,b:{{AAE=}},t:true,z:null,zt:null.string,` +
			`l:[1.,"x",[]],m:{'quoted key':"v","s":'''long ''' '''string'''},ss:$dynamodb_SS::["x","y"],` +
			`ns:$dynamodb_NS::[1.,2.5],bs:$dynamodb_BS::[{{AQ==}}]}} // a comment`,
		`$ion_1_0`,
		``,
		`{Item:{pk:"b"}} /* trailing */`,
		`{Item:{pk:"c",}`,           // unterminated
		`{Other:{pk:"d"}}`,          // no Item
		`{Item:{pk:"e",n:1.5e999}}`, // out of DynamoDB's range
		`{Item:{pk:"f",s:$dynamodb_SS::[1.]}}`,
		`{Item:{pk:"g"}} extra`,
	}, "\n")
	d, err := NewDecoder(ION, strings.NewReader(src), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(readAll(t, d), "\n")
	want := `{"b":{"B":"AAE="},"bs":{"BS":["AQ=="]},"d":{"N":"0.25"},"f":{"N":"1500"},"i":{"N":"-12"},` +
		`"l":{"L":[{"N":"1"},{"S":"x"},{"L":[]}]},"m":{"M":{"quoted key":{"S":"v"},"s":{"S":"long string"}}},"n":{"N":"1.5"},` +
		`"ns":{"NS":["1","2.5"]},"pk":{"S":"aé!"},"ss":{"SS":["x","y"]},"t":{"BOOL":true},"z":{"NULL":true},"zt":{"NULL":true}}` + "\n" +
		`{"pk":{"S":"b"}}` + "\nline 5: error\nline 6: error\nline 7: error\nline 8: error\nline 9: error"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
