package gen

// The word lists the generated names, addresses and texts are made of.
// They are dbarena's own: common English first and last names, street
// and town words, company-name parts, industries and news vocabulary. No
// list is read from a file.

// maleFirst and femaleFirst are customers' first names by c_gndr.
var maleFirst = []string{
	"James", "John", "Robert", "Michael", "William", "David", "Richard", "Joseph", "Thomas", "Charles",
	"Christopher", "Daniel", "Matthew", "Anthony", "Mark", "Donald", "Steven", "Paul", "Andrew", "Joshua",
	"Kenneth", "Kevin", "Brian", "George", "Timothy", "Ronald", "Edward", "Jason", "Jeffrey", "Ryan",
	"Jacob", "Gary", "Nicholas", "Eric", "Jonathan", "Stephen", "Larry", "Justin", "Scott", "Brandon",
	"Benjamin", "Samuel", "Gregory", "Alexander", "Frank", "Patrick", "Raymond", "Jack", "Dennis", "Jerry",
	"Tyler", "Aaron", "Jose", "Adam", "Nathan", "Henry", "Douglas", "Zachary", "Peter", "Kyle",
	"Ethan", "Walter", "Noah", "Jeremy", "Christian", "Keith", "Roger", "Terry", "Gerald", "Harold",
	"Sean", "Austin", "Carl", "Arthur", "Lawrence", "Dylan", "Jesse", "Jordan", "Bryan", "Billy",
	"Joe", "Bruce", "Gabriel", "Logan", "Albert", "Willie", "Alan", "Juan", "Wayne", "Elijah",
	"Randy", "Roy", "Vincent", "Ralph", "Eugene", "Russell", "Bobby", "Mason", "Philip", "Louis",
}

var femaleFirst = []string{
	"Mary", "Patricia", "Jennifer", "Linda", "Elizabeth", "Barbara", "Susan", "Jessica", "Sarah", "Karen",
	"Lisa", "Nancy", "Betty", "Margaret", "Sandra", "Ashley", "Kimberly", "Emily", "Donna", "Michelle",
	"Carol", "Amanda", "Dorothy", "Melissa", "Deborah", "Stephanie", "Rebecca", "Sharon", "Laura", "Cynthia",
	"Kathleen", "Amy", "Angela", "Shirley", "Anna", "Brenda", "Pamela", "Emma", "Nicole", "Helen",
	"Samantha", "Katherine", "Christine", "Debra", "Rachel", "Carolyn", "Janet", "Catherine", "Maria", "Heather",
	"Diane", "Ruth", "Julie", "Olivia", "Joyce", "Virginia", "Victoria", "Kelly", "Lauren", "Christina",
	"Joan", "Evelyn", "Judith", "Megan", "Andrea", "Cheryl", "Hannah", "Jacqueline", "Martha", "Gloria",
	"Teresa", "Ann", "Sara", "Madison", "Frances", "Kathryn", "Janice", "Jean", "Abigail", "Alice",
	"Julia", "Judy", "Sophia", "Grace", "Denise", "Amber", "Doris", "Marilyn", "Danielle", "Beverly",
	"Isabella", "Theresa", "Diana", "Natalie", "Brittany", "Charlotte", "Marie", "Kayla", "Alexis", "Lori",
}

// lastNames are customers', CEOs' and authors' last names.
var lastNames = []string{
	"Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
	"Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin",
	"Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson",
	"Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores",
	"Green", "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell", "Carter", "Roberts",
	"Gomez", "Phillips", "Evans", "Turner", "Diaz", "Parker", "Cruz", "Edwards", "Collins", "Reyes",
	"Stewart", "Morris", "Morales", "Murphy", "Cook", "Rogers", "Gutierrez", "Ortiz", "Morgan", "Cooper",
	"Peterson", "Bailey", "Reed", "Kelly", "Howard", "Ramos", "Kim", "Cox", "Ward", "Richardson",
	"Watson", "Brooks", "Chavez", "Wood", "James", "Bennett", "Gray", "Mendoza", "Ruiz", "Hughes",
	"Price", "Alvarez", "Castillo", "Sanders", "Patel", "Myers", "Long", "Ross", "Foster", "Jimenez",
	"Powell", "Jenkins", "Perry", "Russell", "Sullivan", "Bell", "Coleman", "Butler", "Henderson", "Barnes",
	"Gonzales", "Fisher", "Vasquez", "Simmons", "Romero", "Jordan", "Patterson", "Alexander", "Hamilton", "Graham",
	"Reynolds", "Griffin", "Wallace", "Moreno", "West", "Cole", "Hayes", "Bryant", "Herrera", "Gibson",
	"Ellis", "Tran", "Medina", "Aguilar", "Stevens", "Murray", "Ford", "Castro", "Marshall", "Owens",
	"Harrison", "Fernandez", "McDonald", "Woods", "Washington", "Kennedy", "Wells", "Vargas", "Henry", "Chen",
	"Freeman", "Webb", "Tucker", "Guzman", "Burns", "Crawford", "Olson", "Simpson", "Porter", "Hunter",
	"Gordon", "Mendez", "Silva", "Shaw", "Snyder", "Mason", "Dixon", "Munoz", "Hunt", "Hicks",
	"Holmes", "Palmer", "Wagner", "Black", "Robertson", "Boyd", "Rose", "Stone", "Salazar", "Fox",
	"Warren", "Mills", "Meyer", "Rice", "Schmidt", "Garza", "Daniels", "Ferguson", "Nichols", "Stephens",
	"Soto", "Weaver", "Ryan", "Gardner", "Payne", "Grant", "Dunn", "Kelley", "Spencer", "Hawkins",
}

// streetNames and streetKinds make ad_line1.
var streetNames = []string{
	"Oak", "Maple", "Cedar", "Pine", "Elm", "Washington", "Lake", "Hill", "Park", "Main",
	"Church", "Walnut", "Spring", "North", "Ridge", "Lincoln", "Jackson", "Highland", "Sunset", "Chestnut",
	"Willow", "Meadow", "River", "Forest", "Franklin", "Madison", "Jefferson", "Adams", "Center", "Mill",
	"Valley", "Cherry", "Dogwood", "Birch", "Hickory", "Poplar", "Laurel", "Magnolia", "Spruce", "Aspen",
	"Lakeview", "Hillcrest", "Fairview", "Woodland", "Broad", "Market", "Water", "Union", "Prospect", "Summit",
	"Green", "Orchard", "Harbor", "Bridge", "College", "Front", "Grove", "Heritage", "Liberty", "Mulberry",
}

var streetKinds = []string{"St", "Ave", "Blvd", "Rd", "Ln", "Dr", "Ct", "Way", "Pl", "Ter", "Pkwy", "Cir"}

// townHeads and townTails make zc_town.
var townHeads = []string{
	"Ash", "Bay", "Bell", "Black", "Bridge", "Brook", "Cedar", "Clear", "Cold", "Deer",
	"East", "Elm", "Fair", "Fox", "Glen", "Green", "Hazel", "High", "Holly", "Iron",
	"Kings", "Lake", "Lin", "Maple", "Marsh", "Mill", "New", "North", "Oak", "Pine",
	"Red", "River", "Rock", "Rose", "Salt", "Sand", "Silver", "South", "Spring", "Stone",
	"Sun", "Water", "West", "White", "Wild", "Willow", "Wood", "Wolf",
}

var townTails = []string{
	"ford", "ton", "ville", "field", "wood", "dale", "burg", "port", "view", "land",
	"brook", "mont", "haven", "ridge", "side", "crest", "bury", "worth", "stead", "mouth",
	" Falls", " Springs", " Park", " Hills", " City", " Grove", " Heights", " Junction",
}

// divisions are the zip codes' divisions (zc_div): the 50 states and the
// District of Columbia, by code, with their names.
var divisions = [][2]string{
	{"AK", "Alaska"}, {"AL", "Alabama"}, {"AR", "Arkansas"}, {"AZ", "Arizona"}, {"CA", "California"},
	{"CO", "Colorado"}, {"CT", "Connecticut"}, {"DC", "District of Columbia"}, {"DE", "Delaware"}, {"FL", "Florida"},
	{"GA", "Georgia"}, {"HI", "Hawaii"}, {"IA", "Iowa"}, {"ID", "Idaho"}, {"IL", "Illinois"},
	{"IN", "Indiana"}, {"KS", "Kansas"}, {"KY", "Kentucky"}, {"LA", "Louisiana"}, {"MA", "Massachusetts"},
	{"MD", "Maryland"}, {"ME", "Maine"}, {"MI", "Michigan"}, {"MN", "Minnesota"}, {"MO", "Missouri"},
	{"MS", "Mississippi"}, {"MT", "Montana"}, {"NC", "North Carolina"}, {"ND", "North Dakota"}, {"NE", "Nebraska"},
	{"NH", "New Hampshire"}, {"NJ", "New Jersey"}, {"NM", "New Mexico"}, {"NV", "Nevada"}, {"NY", "New York"},
	{"OH", "Ohio"}, {"OK", "Oklahoma"}, {"OR", "Oregon"}, {"PA", "Pennsylvania"}, {"RI", "Rhode Island"},
	{"SC", "South Carolina"}, {"SD", "South Dakota"}, {"TN", "Tennessee"}, {"TX", "Texas"}, {"UT", "Utah"},
	{"VA", "Virginia"}, {"VT", "Vermont"}, {"WA", "Washington"}, {"WI", "Wisconsin"}, {"WV", "West Virginia"},
	{"WY", "Wyoming"},
}

// sectors are the 12 sectors (sc_id, sc_name).
var sectors = [][2]string{
	{"BM", "Basic Materials"}, {"CG", "Capital Goods"}, {"CO", "Conglomerates"}, {"CC", "Consumer Cyclical"},
	{"CN", "Consumer Non-Cyclical"}, {"EN", "Energy"}, {"FN", "Financial"}, {"HC", "Healthcare"},
	{"SV", "Services"}, {"TC", "Technology"}, {"TR", "Transportation"}, {"UT", "Utilities"},
}

// industries are the 102 industries by sector (the index into sectors).
var industries = []struct {
	name   string
	sector int
}{
	{"Chemicals - Commodity", 0}, {"Chemicals - Plastics and Rubber", 0}, {"Chemicals - Specialty", 0},
	{"Containers and Packaging", 0}, {"Fabricated Plastic and Rubber", 0}, {"Forestry and Wood Products", 0},
	{"Gold and Silver", 0}, {"Iron and Steel", 0}, {"Metal Mining", 0}, {"Misc. Fabricated Products", 0},
	{"Non-Metallic Mining", 0}, {"Paper and Paper Products", 0},
	{"Aerospace and Defense", 1}, {"Construction - Raw Materials", 1}, {"Construction - Supplies", 1},
	{"Construction and Agricultural Machinery", 1}, {"Misc. Capital Goods", 1}, {"Mobile Homes and RVs", 1},
	{"Conglomerates", 2}, {"Diversified Holding Companies", 2},
	{"Apparel and Accessories", 3}, {"Appliance and Tool", 3}, {"Audio and Video Equipment", 3},
	{"Auto and Truck Manufacturers", 3}, {"Auto and Truck Parts", 3}, {"Footwear", 3}, {"Furniture and Fixtures", 3},
	{"Jewelry and Silverware", 3}, {"Photography", 3}, {"Recreational Products", 3}, {"Textiles - Non Apparel", 3},
	{"Tires", 3},
	{"Beverages - Alcoholic", 4}, {"Beverages - Non-Alcoholic", 4}, {"Crops", 4}, {"Fish and Livestock", 4},
	{"Food Processing", 4}, {"Office Supplies", 4}, {"Personal and Household Products", 4}, {"Tobacco", 4},
	{"Coal", 5}, {"Oil and Gas - Integrated", 5}, {"Oil and Gas Operations", 5}, {"Oil Well Services and Equipment", 5},
	{"Renewable Energy", 5},
	{"Consumer Financial Services", 6}, {"Insurance - Accident and Health", 6}, {"Insurance - Life", 6},
	{"Insurance - Property and Casualty", 6}, {"Investment Services", 6}, {"Misc. Financial Services", 6},
	{"Money Center Banks", 6}, {"Regional Banks", 6}, {"Savings and Loans", 6},
	{"Biotechnology and Drugs", 7}, {"Healthcare Facilities", 7}, {"Major Drugs", 7},
	{"Medical Equipment and Supplies", 7}, {"Medical Laboratories", 7},
	{"Advertising", 8}, {"Broadcasting and Cable TV", 8}, {"Business Services", 8}, {"Casinos and Gaming", 8},
	{"Communications Services", 8}, {"Hotels and Motels", 8}, {"Motion Pictures", 8}, {"Personal Services", 8},
	{"Printing and Publishing", 8}, {"Real Estate Operations", 8}, {"Rental and Leasing", 8},
	{"Restaurants", 8}, {"Retail - Apparel", 8}, {"Retail - Catalog and Mail Order", 8},
	{"Retail - Department and Discount", 8}, {"Retail - Drugs", 8}, {"Retail - Grocery", 8},
	{"Retail - Home Improvement", 8}, {"Retail - Specialty", 8}, {"Retail - Technology", 8},
	{"Schools", 8}, {"Security Systems and Services", 8}, {"Waste Management Services", 8},
	{"Communications Equipment", 9}, {"Computer Hardware", 9}, {"Computer Networks", 9},
	{"Computer Peripherals", 9}, {"Computer Services", 9}, {"Computer Storage Devices", 9},
	{"Electronic Instruments and Controls", 9}, {"Office Equipment", 9}, {"Scientific and Technical Instruments", 9},
	{"Semiconductors", 9}, {"Software and Programming", 9},
	{"Air Courier", 10}, {"Airline", 10}, {"Misc. Transportation", 10}, {"Railroads", 10}, {"Trucking", 10},
	{"Water Transportation", 10},
	{"Electric Utilities", 11}, {"Natural Gas Utilities", 11}, {"Water Utilities", 11},
}

// companyHeads, companyBodies and companyTails make co_name (64 × 48 ×
// 16 combinations, see companyName).
var companyHeads = []string{
	"Acme", "Allied", "Apex", "Atlas", "Beacon", "Bright", "Cardinal", "Cascade", "Centennial", "Citadel",
	"Coastal", "Columbia", "Continental", "Crescent", "Crown", "Delta", "Diamond", "Eagle", "Empire", "Evergreen",
	"Falcon", "First", "Frontier", "Gateway", "Global", "Golden", "Granite", "Harbor", "Heritage", "Horizon",
	"Imperial", "Keystone", "Liberty", "Lincoln", "Majestic", "Meridian", "Midwest", "National", "Northern", "Pacific",
	"Paramount", "Patriot", "Phoenix", "Pinnacle", "Pioneer", "Premier", "Prime", "Quantum", "Redwood", "Regal",
	"Reliance", "Royal", "Sterling", "Summit", "Superior", "Titan", "Trinity", "Union", "United", "Vanguard",
	"Vector", "Victory", "Western", "Zenith",
}

var companyBodies = []string{
	"Aero", "Agri", "Analytics", "Automotive", "Bio", "Brands", "Capital", "Chemical", "Communications", "Computing",
	"Consumer", "Devices", "Digital", "Dynamics", "Electric", "Energy", "Engineering", "Foods", "Freight", "Gas",
	"Health", "Home", "Industrial", "Instruments", "Insurance", "Leisure", "Logistics", "Machines", "Marine", "Materials",
	"Media", "Medical", "Metals", "Micro", "Mining", "Networks", "Oil", "Paper", "Pharma", "Power",
	"Properties", "Resources", "Retail", "Semiconductor", "Software", "Steel", "Systems", "Textiles",
}

var companyTails = []string{
	"Inc.", "Corp.", "Co.", "Ltd.", "Group", "Holdings", "Partners", "Industries", "Enterprises", "International",
	"Technologies", "Worldwide", "Trust", "Associates", "Company", "Incorporated",
}

// spRatings are co_sp_rate's values.
var spRatings = []string{
	"AAA", "AA+", "AA", "AA-", "A+", "A", "A-", "BBB+", "BBB", "BBB-", "BB+", "BB", "BB-",
	"B+", "B", "B-", "CCC+", "CCC", "CCC-", "CC", "C", "D",
}

// accountKinds end ca_name.
var accountKinds = []string{
	"Individual", "Joint", "Retirement", "Roth IRA", "Rollover IRA", "Trust", "College Fund", "Brokerage",
	"Savings", "Custodial", "Growth", "Income",
}

// emailDomains are the customers' e-mail domains.
var emailDomains = []string{
	"mail.example.com", "example.net", "example.org", "inbox.example.com", "post.example.net", "webmail.example.org",
}

// newsSources are ni_source's values.
var newsSources = []string{
	"Market Wire", "Business Daily", "Financial Herald", "The Trading Post", "Wall Street Review",
	"Investor Weekly", "Capital Times", "Economic Observer", "Street Journal", "Exchange Bulletin",
}

// newsEvents complete ni_headline after the company's name.
var newsEvents = []string{
	"reports quarterly results", "announces new product line", "names new chief executive",
	"raises full-year outlook", "cuts full-year outlook", "completes acquisition", "expands overseas",
	"announces share buyback", "declares dividend", "settles lawsuit", "opens new plant", "wins major contract",
}

// newsWords are the vocabulary of news summaries and items.
var newsWords = []string{
	"the", "company", "said", "on", "market", "shares", "rose", "fell", "percent", "after",
	"quarter", "revenue", "earnings", "analysts", "expected", "growth", "sales", "investors", "year", "and",
	"of", "in", "a", "to", "its", "new", "chief", "executive", "officer", "board",
	"announced", "results", "outlook", "strong", "weak", "demand", "costs", "margin", "profit", "loss",
	"trading", "stock", "price", "higher", "lower", "than", "forecast", "guidance", "operations", "business",
	"customers", "products", "services", "plans", "expand", "acquire", "agreement", "deal", "billion", "million",
	"dollars", "fiscal", "second", "third", "fourth", "first", "half", "compared", "with", "period",
	"industry", "competition", "regulators", "approval", "launch", "production", "capacity", "supply", "chain", "prices",
	"interest", "rates", "economy", "consumer", "spending", "debt", "cash", "flow", "dividend", "buyback",
	"management", "strategy", "investment", "research", "development", "technology", "digital", "global", "markets", "region",
}
